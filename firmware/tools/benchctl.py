#!/usr/bin/env python3
"""Manual smoke tool for the reference firmware in QEMU (python3 standard library only).

It does by hand what bench's HIL harness will do in Rust: boot an image in
QEMU's lm3s6965evb, find the RTT control block (ELF symbol _SEGGER_RTT),
write commands into the `bench-ctl` down-channel and read records from the
`bench` up-channel over QEMU's gdbstub, and press the clock's buttons with
QMP key events.

    benchctl.py smoke ELF        boot, play short scripted games, print the records
    benchctl.py defects ELF      one short scenario per rule defect (compare normal.elf with a defect image)
    benchctl.py drift ELF [-s N] run N guest seconds (icount, time compressed) and fit
                                 the firmware clock against the RTC counter (ppm)
    benchctl.py probe ELF --log F  what QEMU models (GPIO quirk, DWT, GPTM) and what accesses cost
    benchctl.py records ELF      boot, configure nothing, print records for 2 s

The record decoder below is a second, independent reading of hil/CONTRACT.md;
the Rust one (hil/contract) is the reference.
"""

import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

RECORD_SIZE = 48
RTT_ID = b"SEGGER RTT\0\0\0\0\0\0"
KIND_NAMES = {1: "Hello", 2: "Press", 3: "Flag", 4: "Period", 5: "Snapshot", 6: "TimeBase", 7: "Ack"}
SIDES = {0: "White", 1: "Black", 2: "Pause", 0xFF: "-"}
PHASES = {0: "NotStarted", 1: "Running", 2: "Paused", 3: "Finished"}
PRESS_RESULTS = {0: "Accepted", 1: "NotRunning", 2: "NotStarted", 3: "Paused", 4: "Finished", 5: "Other"}
CAUSES = {0: "MovesCompleted", 1: "FlagOpenedNext", 2: "OvertimeBegins", 3: "PeriodLost"}
COMMANDS = {0: "Unknown", 1: "tc", 2: "start", 3: "reset", 4: "pause", 5: "resume"}
STATUSES = {0: "Ok", 1: "UnknownCommand", 2: "LineTooLong", 3: "BadTimeControl", 4: "NotAllowed"}

SYST_RVR, SYST_CVR, SCB_ICSR = 0xE000E014, 0xE000E018, 0xE000ED04
SYSCLK_HZ = 12_500_000


# --------------------------------------------------------------------------- ELF symbols

def elf_symbols(path):
    """{name: address} from the .symtab of a 32-bit little-endian ELF."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise SystemExit(f"{path}: not a 32-bit little-endian ELF")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    symbols = {}
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for offset in range(sh[4], sh[4] + sh[5], 16):
            name_off, value = struct.unpack_from("<II", data, offset)
            start = strtab[4] + name_off
            name = data[start:data.index(b"\0", start)].decode("ascii", "replace")
            if name:
                symbols[name] = value
    return symbols


def find_symbol(symbols, fragment):
    matches = [address for name, address in symbols.items() if fragment in name]
    if len(matches) != 1:
        raise SystemExit(f"expected one symbol containing {fragment!r}, found {len(matches)}")
    return matches[0]


# --------------------------------------------------------------------------- GDB remote protocol

class Gdb:
    """A minimal all-stop GDB remote client for QEMU 7.2's gdbstub.

    QEMU halts the VM on any byte received while it runs, so every access is
    halt (0x03, wait for the stop reply), read/write, continue."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.running = False
        # Connecting halts the VM; ask for the stop reason to sync the stream.
        self.command("?")

    def _byte(self):
        while not self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("gdbstub closed the connection")
            self.buffer += chunk
        byte, self.buffer = self.buffer[:1], self.buffer[1:]
        return byte

    def _packet(self):
        while self._byte() != b"$":
            pass
        payload = b""
        while (byte := self._byte()) != b"#":
            payload += byte
        checksum = self._byte() + self._byte()
        if int(checksum, 16) != sum(payload) % 256:
            raise ConnectionError(f"bad checksum in {payload[:40]!r}")
        self.sock.sendall(b"+")
        return payload.decode("ascii")

    def _send(self, payload):
        data = payload.encode("ascii")
        self.sock.sendall(b"$" + data + b"#%02x" % (sum(data) % 256))

    def command(self, payload):
        self._send(payload)
        reply = self._packet()
        # The answer to `?` may be preceded by the unsolicited stop reply.
        while payload == "?" and self.buffer.find(b"$") >= 0:
            reply = self._packet()
        return reply

    def halt(self):
        if self.running:
            self.sock.sendall(b"\x03")
            reply = self._packet()
            if not reply.startswith(("T", "S")):
                raise ConnectionError(f"expected a stop reply, got {reply!r}")
            self.running = False

    def cont(self):
        if not self.running:
            self._send("c")
            self.running = True

    def read(self, address, length):
        out = b""
        while length > 0:
            chunk = min(length, 1024)
            reply = self.command(f"m{address:x},{chunk:x}")
            if reply.startswith("E") or len(reply) != 2 * chunk:
                raise ConnectionError(f"reading {chunk} bytes at {address:#x}: {reply[:20]!r}")
            out += bytes.fromhex(reply)
            address, length = address + chunk, length - chunk
        return out

    def write(self, address, data):
        for start in range(0, len(data), 512):
            chunk = data[start:start + 512]
            reply = self.command(f"M{address + start:x},{len(chunk):x}:{chunk.hex()}")
            if reply != "OK":
                raise ConnectionError(f"writing {len(chunk)} bytes at {address + start:#x}: {reply!r}")

    def u32(self, address):
        return struct.unpack("<I", self.read(address, 4))[0]


# --------------------------------------------------------------------------- QMP

class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(100):
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                time.sleep(0.05)
        self.file = self.sock.makefile("rwb")
        self._read()  # greeting
        self.execute("qmp_capabilities")

    def _read(self):
        while True:
            message = json.loads(self.file.readline())
            if "event" not in message:
                return message

    def execute(self, command, **arguments):
        request = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self.file.write(json.dumps(request).encode() + b"\n")
        self.file.flush()
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"QMP {command}: {reply['error']}")
        return reply["return"]

    def key(self, qcode, down):
        event = {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}
        self.execute("input-send-event", events=[event])


# --------------------------------------------------------------------------- RTT over the gdbstub

class Rtt:
    def __init__(self, gdb, control_block):
        self.gdb = gdb
        header = gdb.read(control_block, 24)
        if header[:16] != RTT_ID:
            raise SystemExit(f"no RTT control block at {control_block:#x} (id {header[:16]!r}); firmware not started?")
        max_up, max_down = struct.unpack_from("<ii", header, 16)
        self.channels = {}
        for index in range(max_up + max_down):
            address = control_block + 24 + 24 * index
            name_addr, buffer, size, write, read, flags = struct.unpack("<6I", gdb.read(address, 24))
            name = gdb.read(name_addr, 32).split(b"\0")[0].decode() if name_addr else ""
            direction = "up" if index < max_up else "down"
            self.channels[(direction, name)] = (address, buffer, size, flags)

    def channel(self, direction, name):
        if (direction, name) not in self.channels:
            raise SystemExit(f"no {direction}-channel named {name!r}: {sorted(self.channels)}")
        return self.channels[(direction, name)]

    def read_up(self, name):
        """All bytes waiting in up-channel `name`; frees them (VM must be halted)."""
        address, buffer, size, _ = self.channel("up", name)
        write, read = struct.unpack("<II", self.gdb.read(address + 12, 8))
        if write == read:
            return b""
        if write > read:
            data = self.gdb.read(buffer + read, write - read)
        else:
            data = self.gdb.read(buffer + read, size - read) + (self.gdb.read(buffer, write) if write else b"")
        self.gdb.write(address + 16, struct.pack("<I", write))
        return data

    def write_down(self, name, data):
        """Appends `data` to down-channel `name` (VM must be halted)."""
        address, buffer, size, _ = self.channel("down", name)
        write, read = struct.unpack("<II", self.gdb.read(address + 12, 8))
        free = (read - write - 1) % size
        if len(data) > free:
            raise RuntimeError(f"down-channel {name} has {free} bytes free, need {len(data)}")
        first = data[:size - write]
        self.gdb.write(buffer + write, first)
        if len(data) > len(first):
            self.gdb.write(buffer, data[len(first):])
        self.gdb.write(address + 12, struct.pack("<I", (write + len(data)) % size))


# --------------------------------------------------------------------------- records

def decode(record):
    kind, side, dropped, seq, at_us = struct.unpack_from("<BBHIQ", record, 0)
    fields = {"kind": KIND_NAMES.get(kind, f"?{kind}"), "side": SIDES.get(side, f"?{side}"),
              "dropped": dropped, "seq": seq, "at_us": at_us}
    p = record[16:]
    if kind == 1:
        (fields["version"], fields["record_size"], fields["tick_us"], fields["hw_counter_hz"], fields["hw_counter_bits"],
         fields["buttons"], _, fields["debounce_us"], fields["firmware_version"]) = struct.unpack_from("<HHIIBBHII", p)
        fields["name"] = p[24:32].rstrip(b"\0").decode("ascii", "replace")
    elif kind == 2:
        result, _, fields["bounces"], fields["moves"], fields["remaining_us"], fields["handled_at_us"] = \
            struct.unpack_from("<BBHIQQ", p)
        fields["result"] = PRESS_RESULTS.get(result, result)
    elif kind == 3:
        fields["period"], fields["sequence"], fields["observed_at_us"], fields["moves"] = struct.unpack_from("<IIQI", p)
    elif kind == 4:
        fields["from"], fields["to"], cause, fields["moves"], fields["remaining_us"] = struct.unpack_from("<IIB3xIQ", p)
        fields["cause"] = CAUSES.get(cause, cause)
    elif kind == 5:
        (fields["white_us"], fields["black_us"], fields["moves_white"], fields["moves_black"], fields["delay_us"],
         fields["period_white"], fields["period_black"], phase, flags) = struct.unpack_from("<QQIIIBBBB", p)
        fields["phase"], fields["flags"] = PHASES.get(phase, phase), flags
    elif kind == 6:
        fields["hw_counter"], fields["ticks"], edge, fields["dropped_total"] = struct.unpack_from("<QIB3xI", p)
        fields["edge"] = bool(edge)
    elif kind == 7:
        command, status, fields["error_position"], fields["commands"], fields["initial_us"], fields["final_period"] = \
            struct.unpack_from("<BBHIQI", p)
        fields["command"], fields["status"] = COMMANDS.get(command, command), STATUSES.get(status, status)
    return fields


def show(fields):
    rest = " ".join(f"{k}={v}" for k, v in fields.items() if k not in ("kind", "seq", "at_us", "dropped"))
    return f"#{fields['seq']:<4} {fields['at_us'] / 1e6:11.6f} s {fields['kind']:<9} {rest}"


# --------------------------------------------------------------------------- the session

class Session:
    """One QEMU running one image, with gdbstub, QMP and RTT attached."""

    def __init__(self, elf, icount=None, log=None):
        self.elf = elf
        symbols = elf_symbols(elf)
        self.control_block = symbols["_SEGGER_RTT"]
        self.ticks_addr = find_symbol(symbols, "5board5TICKS")
        self.dir = tempfile.mkdtemp(prefix="benchctl-")
        self.qmp_path = os.path.join(self.dir, "qmp.sock")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.gdb_port = probe.getsockname()[1]
        self.command = ["qemu-system-arm", "-cpu", "cortex-m3", "-machine", "lm3s6965evb", "-nographic",
                        "-monitor", "none", "-serial", "none", "-kernel", elf,
                        "-gdb", f"tcp:127.0.0.1:{self.gdb_port}", "-qmp", f"unix:{self.qmp_path},server,nowait", "-S"]
        if icount and icount != "none":
            self.command += ["-icount", icount]
        if log:
            self.command += ["-d", "unimp,guest_errors", "-D", log]
        self.qemu = subprocess.Popen(self.command, stdin=subprocess.DEVNULL)
        self.qmp = Qmp(self.qmp_path)
        self.gdb = self._connect_gdb()
        self.records = []
        self.rtt = None
        self.commands_sent = 0

    def _connect_gdb(self):
        for _ in range(100):
            try:
                return Gdb(self.gdb_port)
            except ConnectionRefusedError:
                time.sleep(0.05)
        raise SystemExit("QEMU's gdbstub did not come up")

    def close(self):
        self.qemu.kill()  # our own child, by its handle
        self.qemu.wait()

    def boot(self, settle_s=0.3):
        """Runs the firmware until it has set up RTT, then attaches to it."""
        self.gdb.cont()
        time.sleep(settle_s)
        self.gdb.halt()
        self.rtt = Rtt(self.gdb, self.control_block)
        self.gdb.cont()

    def guest_us(self):
        """The firmware clock as the halted VM holds it (ticks + SysTick count)."""
        ticks, = struct.unpack("<Q", self.gdb.read(self.ticks_addr, 8))
        reload, current, icsr = self.gdb.u32(SYST_RVR), self.gdb.u32(SYST_CVR), self.gdb.u32(SCB_ICSR)
        if icsr & (1 << 26):  # a SysTick pending: one tick not yet counted
            ticks += 1
        cycles_per_tick = SYSCLK_HZ // 1000
        elapsed = 0 if current == 0 else reload + 1 - current  # as board::now_us counts it
        return ticks * 1000 + min(elapsed * 1000 // cycles_per_tick, 999)

    def poll(self, quiet=False):
        """Halts, drains the up-channel, resumes; returns and prints new records."""
        self.gdb.halt()
        data = self.rtt.read_up("bench")
        self.guest_now_us = self.guest_us()
        self.gdb.cont()
        new = [decode(data[i:i + RECORD_SIZE]) for i in range(0, len(data) - len(data) % RECORD_SIZE, RECORD_SIZE)]
        if len(data) % RECORD_SIZE:
            raise RuntimeError(f"{len(data)} bytes is not a whole number of records")
        for record in new:
            if self.records and record["seq"] != (self.records[-1]["seq"] + 1) % 2**32:
                print(f"!! sequence gap: {self.records[-1]['seq']} -> {record['seq']}")
            self.records.append(record)
            if not quiet:
                print(show(record))
        return new

    def send(self, line):
        self.commands_sent += 1
        self.gdb.halt()
        self.rtt.write_down("bench-ctl", line.encode() + b"\n")
        self.gdb.cont()

    def press(self, qcode, hold_s=0.05):
        """Presses and releases a key; returns the guest time just before the key went down."""
        self.gdb.halt()
        before_us = self.guest_us()
        self.gdb.cont()
        self.qmp.key(qcode, True)
        time.sleep(hold_s)
        self.qmp.key(qcode, False)
        return before_us


def wait(session, seconds, quiet=False):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(min(0.2, max(0.0, end - time.monotonic())))
        session.poll(quiet)


def wait_guest(session, target_us, quiet=True):
    """Reads records until the firmware clock has reached `target_us` (guest time)."""
    while True:
        session.poll(quiet)
        if session.guest_now_us >= target_us:
            return session.guest_now_us
        time.sleep(0.002)


def since(session, mark, kinds=("Hello", "Press", "Flag", "Period", "Ack")):
    """Prints the records after index `mark` of these kinds; returns them."""
    shown = [r for r in session.records[mark:] if r["kind"] in kinds]
    for record in shown:
        print(show(record))
    return shown


def start_game(session, control):
    """Sets `control`, starts it; returns the guest instant White's clock started."""
    session.send(f"tc {control}")
    session.send("start")
    for _ in range(50):
        time.sleep(0.02)
        session.poll(quiet=True)
        acks = [r for r in session.records if r["kind"] == "Ack" and r["command"] == "start"]
        if acks and acks[-1]["commands"] == session.commands_sent:
            return acks[-1]["at_us"]
    raise RuntimeError(f"no Ack for start of {control}")


def smoke(args):
    session = Session(args.elf, icount=args.icount, log=args.log)
    try:
        host_start = time.monotonic()
        session.boot()
        print("$ " + " ".join(session.command))
        print(f"QEMU pid {session.qemu.pid}, gdb port {session.gdb_port}, _SEGGER_RTT at {session.control_block:#x}, "
              f"channels {sorted(session.rtt.channels)} (attached in {time.monotonic() - host_start:.2f} s host)")
        session.poll()
        # QEMU 7.2 reads the key pins low until their first event: press and
        # release each once. No game is started, so nothing registers.
        for qcode in ("up", "down", "left"):
            session.press(qcode, hold_s=0.02)
        wait(session, 0.2)

        print("\n-- bad input is answered, not crashed on (and the quirk presses above registered nothing)")
        mark = len(session.records)
        for line in ("tc 40/54x0", "start", "fly", "tc " + "9" * 100):
            session.send(line)
        wait(session, 0.3, quiet=True)
        since(session, mark)

        print("\n-- 300+2: six presses; guest time from key sent to edge, and edge to handled")
        mark = len(session.records)
        started = start_game(session, "300+2")
        latencies = []
        for index, qcode in enumerate(("up", "down") * 3):
            wait_guest(session, started + 400_000 * (index + 1))
            before = session.press(qcode, hold_s=0.01)
            while not [r for r in session.records[mark:] if r["kind"] == "Press"][index:]:
                time.sleep(0.01)
                session.poll(quiet=True)
            press = [r for r in session.records[mark:] if r["kind"] == "Press"][index]
            latencies.append((press["at_us"] - before, press["handled_at_us"] - press["at_us"]))
        since(session, mark)
        print(show([r for r in session.records if r["kind"] == "Snapshot"][-1]))

        print("\n-- White's key chatters (3 falling edges 3 ms apart in host time), then Black presses twice")
        mark = len(session.records)
        for down in (True, False, True, False, True, False):
            session.qmp.key("up", down)
            time.sleep(0.003)
        wait(session, 0.3, quiet=True)
        session.press("down", hold_s=0.01)  # Black's clock runs now: accepted
        session.press("down", hold_s=0.01)  # Black again: out of turn (NotRunning), or bounce if within 20 ms
        wait(session, 0.3, quiet=True)
        since(session, mark)

        print("\n-- 2/5+1:5: the stage switch at move 2 (6.2b), then a flag in the final stage")
        mark = len(session.records)
        started = start_game(session, "2/5+1:5")
        for index, qcode in enumerate(("up", "down", "up", "down")):
            wait_guest(session, started + 300_000 * (index + 1))
            session.press(qcode, hold_s=0.01)
        wait_guest(session, started + 14_000_000)
        session.poll(quiet=True)
        since(session, mark)

        print("\n-- pause button (key `left`, 6.13), then the resume command")
        mark = len(session.records)
        started = start_game(session, "60")
        wait_guest(session, started + 500_000)
        session.press("left", hold_s=0.01)
        wait_guest(session, started + 1_500_000)
        session.send("resume")
        wait(session, 0.3, quiet=True)
        since(session, mark)
        print(show([r for r in session.records if r["kind"] == "Snapshot"][-1]))

        samples = [r for r in session.records if r["kind"] == "TimeBase" and r["edge"]]
        offsets = [r["at_us"] - r["hw_counter"] * 1_000_000 for r in samples]
        print(f"\n-- {len(samples)} time-base edge samples: firmware clock minus RTC seconds, "
              f"min {min(offsets)} us, max {max(offsets)} us")
        print("-- press latency in guest time (key sent after resume -> edge stamp; edge -> handled by main loop):")
        for to_edge, to_handled in latencies:
            print(f"   key -> edge {to_edge / 1000:7.3f} ms   edge -> handled {to_handled / 1000:7.3f} ms")
        gaps = sum(1 for a, b in zip(session.records, session.records[1:]) if b["seq"] != a["seq"] + 1)
        print(f"\n{len(session.records)} records, {gaps} sequence gaps, dropped {session.records[-1]['dropped']}; "
              f"guest {session.records[-1]['at_us'] / 1e6:.1f} s in host {time.monotonic() - host_start:.1f} s")
    finally:
        session.close()


def defects(args):
    """One scenario per rule defect; run it on normal.elf and on a defect image and compare."""
    session = Session(args.elf, icount=args.icount, log=args.log)
    try:
        session.boot()
        for qcode in ("up", "down", "left"):
            session.press(qcode, hold_s=0.02)
        wait(session, 0.2, quiet=True)

        def scenario(title, control, presses, until_us):
            """`presses`: (guest µs after the start, key, "press" or "chatter")."""
            print(f"\n-- {title}: {control}")
            mark = len(session.records)
            started = start_game(session, control)
            print(f"   started at {started / 1e6:.6f} s")
            for offset_us, qcode, how in presses:
                wait_guest(session, started + offset_us)
                if how == "chatter":  # three falling edges, a few ms apart
                    for down in (True, False, True, False, True, False):
                        session.qmp.key(qcode, down)
                        time.sleep(0.003)
                else:
                    session.press(qcode, hold_s=0.01)
            wait_guest(session, started + until_us)
            session.poll(quiet=True)
            since(session, mark, kinds=("Press", "Flag", "Period"))
            print(show([r for r in session.records if r["kind"] == "Snapshot"][-1]))

        scenario("no-debounce: White's key chatters, Black presses, White presses once", "60",
                 [(500_000, "up", "chatter"), (1_000_000, "down", "press"), (1_500_000, "up", "press")], 2_000_000)
        scenario("delay-as-bronstein: White never moves (1 s main, 2 s delay)", "1+d2", [], 4_000_000)
        scenario("late-stage-switch: 2 moves in 10 s, then 10 s", "2/10:10",
                 [(500_000 * (i + 1), key, "press") for i, key in enumerate(("up", "down") * 3)], 3_500_000)
        scenario("increment-before-flag-check: White presses 0.5 s after its 1 s ran out (+2 s)", "1+2",
                 [(1_500_000, "up", "press")], 2_000_000)
        scenario("display-rounding-flag: White never moves (2 s)", "2", [], 3_000_000)
    finally:
        session.close()


def drift(args):
    """Runs the firmware for `seconds` of guest time and fits firmware µs against RTC edges."""
    session = Session(args.elf, icount=args.icount, log=args.log)
    try:
        session.boot(settle_s=0.05)
        session.poll(quiet=True)
        host_start = time.monotonic()
        samples = []
        while not samples or samples[-1]["hw_counter"] < args.seconds:
            time.sleep(0.05)
            for record in session.poll(quiet=True):
                if record["kind"] == "TimeBase" and record["edge"]:
                    samples.append(record)
        host_s = time.monotonic() - host_start
        xs = [r["hw_counter"] * 1e6 for r in samples]  # RTC: µs of emulated hardware time
        ys = [r["at_us"] for r in samples]
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        residual = max(abs(y - (my + slope * (x - mx))) for x, y in zip(xs, ys))
        print(f"{n} edge samples over {samples[-1]['hw_counter'] - samples[0]['hw_counter']} RTC seconds "
              f"({host_s:.1f} s host): firmware clock rate {slope:.9f} -> {(slope - 1) * 1e6:+.1f} ppm, "
              f"max residual {residual:.0f} us")
        print(f"first {show(samples[0])}\nlast  {show(samples[-1])}")
    finally:
        session.close()


def probe(args):
    """What QEMU models: GPIO quirk, keys while halted, DWT, GPTM counters, access costs."""
    session = Session(args.elf, icount=args.icount, log=args.log)

    def write_u32(address, value):
        session.gdb.write(address, struct.pack("<I", value))

    def timed(label, action, runs=50):
        costs = []
        for _ in range(runs):
            start = time.perf_counter()
            action()
            costs.append(time.perf_counter() - start)
            time.sleep(0.01)
        costs.sort()
        print(f"{label}: median {costs[runs // 2] * 1e3:.2f} ms, p90 {costs[runs * 9 // 10] * 1e3:.2f} ms")

    try:
        session.boot(0.2)
        gpio_data = 0x40024000 + 0x3FC
        session.gdb.halt()
        print("GPIOE DATA bits 0-2 at boot:", session.gdb.u32(gpio_data) & 7)
        try:
            session.qmp.key("up", True)
            print("QMP key while halted: accepted")
        except RuntimeError as error:
            print("QMP key while halted:", error)
        session.gdb.cont()
        for qcode in ("up", "down", "left"):
            session.qmp.key(qcode, True)
            session.qmp.key(qcode, False)
        time.sleep(0.1)
        session.gdb.halt()
        print("GPIOE DATA bits 0-2 after press+release of up, down, left:", session.gdb.u32(gpio_data) & 7)
        session.gdb.cont()
        session.qmp.key("up", True)
        time.sleep(0.05)
        session.gdb.halt()
        print("GPIOE DATA bits 0-2 with up held:", session.gdb.u32(gpio_data) & 7)
        session.gdb.cont()
        session.qmp.key("up", False)

        session.gdb.halt()
        write_u32(0xE000EDFC, 1 << 24)  # DEMCR.TRCENA
        write_u32(0xE0001000, 1)  # DWT_CTRL.CYCCNTENA
        first = session.gdb.u32(0xE0001004)
        session.gdb.cont()
        time.sleep(0.2)
        session.gdb.halt()
        print(f"DWT CYCCNT 0.2 s apart: {first} -> {session.gdb.u32(0xE0001004)}")
        write_u32(0x400FE104, session.gdb.u32(0x400FE104) | (1 << 17))  # RCGC1: timer 1
        gptm1 = 0x40031000
        for offset, value in ((0x00, 0), (0x04, 2), (0x28, 12_500_000), (0x0C, 1)):  # 32-bit periodic, 1 s
            write_u32(gptm1 + offset, value)
        first = session.gdb.u32(gptm1 + 0x48)
        session.gdb.cont()
        time.sleep(0.2)
        session.gdb.halt()
        print(f"GPTM1 periodic TAR 0.2 s apart: {first} -> {session.gdb.u32(gptm1 + 0x48)}")
        print(f"GPTM0 RTC TAR: {session.gdb.u32(0x40030048)}")
        session.gdb.cont()

        timed("halt + read 8 bytes + continue (gdbstub)",
              lambda: (session.gdb.halt(), session.gdb.read(0x20000000, 8), session.gdb.cont()))
        timed("poll: halt, drain the up-channel, read guest time, continue", lambda: session.poll(quiet=True))
        timed("QMP xp /2wx (no halt)",
              lambda: session.qmp.execute("human-monitor-command", **{"command-line": "xp /2wx 0x20000000"}))
    finally:
        session.close()
    if args.log:
        print(f"-- {args.log}:")
        print(open(args.log).read(), end="")

    # A gdbstub client connecting to a running QEMU: does QEMU speak first?
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    qemu = subprocess.Popen(["qemu-system-arm", "-cpu", "cortex-m3", "-machine", "lm3s6965evb", "-nographic",
                             "-monitor", "none", "-serial", "none", "-kernel", args.elf,
                             "-gdb", f"tcp:127.0.0.1:{port}"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.settimeout(1.0)
            try:
                print("gdbstub, on connecting to a running VM, sends unasked:", client.recv(100))
            except socket.timeout:
                print("gdbstub, on connecting to a running VM, sends nothing within 1 s")
    finally:
        qemu.kill()
        qemu.wait()


def records(args):
    session = Session(args.elf, icount=args.icount, log=args.log)
    try:
        session.boot()
        wait(session, 2.0)
    finally:
        session.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["smoke", "defects", "drift", "probe", "records"])
    parser.add_argument("elf")
    parser.add_argument("-s", "--seconds", type=int, default=60, help="drift: guest seconds to run")
    parser.add_argument("--icount", default="shift=4,sleep=off",
                        help="QEMU -icount option (default shift=4,sleep=off: deterministic guest time); "
                             "'none' runs QEMU in real time")
    parser.add_argument("--log", help="QEMU -d unimp,guest_errors log file")
    args = parser.parse_args()
    {"smoke": smoke, "defects": defects, "drift": drift, "probe": probe, "records": records}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
