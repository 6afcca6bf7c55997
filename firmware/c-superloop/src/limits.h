/*
 * limits.h: what this clock can hold and how it reads its buttons, as its
 * Hello and Capabilities records announce them.
 */
#ifndef LIMITS_H
#define LIMITS_H

/* The longest time a display or a setting holds: 9:59:59. */
#define TIME_MAX_S 35999u

/* The buttons are read every POLL_MS: a press is stamped at the poll that
   first saw it, and two closings inside one poll are one press. */
#define POLL_MS 10u

/* At or above this the displays show whole seconds (truncated); below it,
   milliseconds. */
#define FINE_BELOW_MS 10000u

#endif
