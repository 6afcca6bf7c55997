//! A QMP (QEMU Machine Protocol) client over a unix socket: JSON objects,
//! one a line. QEMU greets first (`{"QMP": {"version": …}}`), accepts
//! nothing but `qmp_capabilities` until capabilities are negotiated, then
//! answers each `{"execute": …, "id": …}` with `{"return": …, "id": …}` or
//! `{"error": {"class": …, "desc": …}, "id": …}`. Asynchronous events
//! (`{"event": "STOP", …}`) may come between; they are kept, not mistaken
//! for answers.
//!
//! What bench uses (QEMU 7.2): `query-status`, `stop`/`cont`, `system_reset`,
//! `quit`, `human-monitor-command` (`xp` reads guest memory without
//! halting; `gdbserver none` closes the gdbstub), `input-send-event` key
//! events and `send-key` (key events on a queue timed in guest time, for
//! contact bounce): on `lm3s6965evb` the qcodes `up`, `down`, `left`,
//! `right` drive PE0–PE3 and `ctrl` PF1, active low. QEMU refuses
//! `input-send-event` while the VM is halted ("VM not running") and drops
//! `send-key` then without a word.
//!
//! Every read has a deadline; errors are [`TargetError`]s.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::target::TargetError;

/// A line longer than this is not QMP.
const LINE_MAX: usize = 1 << 20;
/// Events kept for [`QmpClient::take_events`]; older ones are dropped.
const EVENTS_KEPT_MAX: usize = 256;

/// The VM's run state (`query-status`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VmStatus {
    pub running: bool,
    /// QEMU's name for the state: `running`, `paused`, `prelaunch`, `debug`, …
    pub status: String,
}

/// A QMP error answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QmpError {
    pub class: String,
    pub desc: String,
}

/// A connection to one QEMU's QMP socket, capabilities negotiated.
#[derive(Debug)]
pub struct QmpClient {
    stream: UnixStream,
    path: PathBuf,
    rx: Vec<u8>,
    timeout: Duration,
    next_id: u64,
    greeting: Value,
    events: Vec<Value>,
}

impl QmpClient {
    /// Connects, reads the greeting and negotiates capabilities.
    pub fn connect(path: &Path, timeout: Duration) -> Result<QmpClient, TargetError> {
        let what = format!("QMP socket {}", path.display());
        let stream = UnixStream::connect(path).map_err(|source| match source.kind() {
            ErrorKind::NotFound | ErrorKind::ConnectionRefused => TargetError::Disconnected {
                what: what.clone(),
                detail: format!("{source} (is QEMU running with -qmp unix:{},server=on?)", path.display()),
            },
            _ => TargetError::Io { what: what.clone(), source },
        })?;
        let mut client = QmpClient {
            stream,
            path: path.to_path_buf(),
            rx: Vec::new(),
            timeout,
            next_id: 1,
            greeting: Value::Null,
            events: Vec::new(),
        };
        let deadline = Instant::now() + timeout;
        let greeting = client.read_message(deadline, "greeting")?;
        if greeting.get("QMP").is_none() {
            return Err(client.protocol(format!("expected the QMP greeting, got {greeting}")));
        }
        client.greeting = greeting;
        client.execute("qmp_capabilities", None)?;
        Ok(client)
    }

    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The greeting QEMU sent on connect.
    pub fn greeting(&self) -> &Value {
        &self.greeting
    }

    /// QEMU's version from the greeting, as `major.minor.micro`.
    pub fn version(&self) -> Option<String> {
        let qemu = self.greeting.get("QMP")?.get("version")?.get("qemu")?;
        let part = |name: &str| qemu.get(name).and_then(Value::as_u64);
        Some(format!("{}.{}.{}", part("major")?, part("minor")?, part("micro")?))
    }

    /// The asynchronous events received so far (STOP, RESUME, SHUTDOWN, …).
    pub fn take_events(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.events)
    }

    fn what(&self) -> String {
        format!("QMP socket {}", self.path.display())
    }

    fn protocol(&self, detail: String) -> TargetError {
        TargetError::Protocol { what: self.what(), detail }
    }

    fn io_error(&self, source: std::io::Error, context: &str) -> TargetError {
        TargetError::from_connection_io(source, self.what(), context, self.timeout)
    }

    /// The next complete line, waiting until `deadline`.
    fn read_line(&mut self, deadline: Instant, context: &str) -> Result<Vec<u8>, TargetError> {
        loop {
            if let Some(end) = self.rx.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.rx.drain(..=end).collect();
                line.pop();
                return Ok(line);
            }
            if self.rx.len() > LINE_MAX {
                self.rx.clear();
                return Err(self.protocol(format!("a line longer than {LINE_MAX} bytes ({context})")));
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(TargetError::Timeout {
                    what: format!("{} ({context})", self.what()),
                    timeout: self.timeout,
                });
            }
            self.stream.set_read_timeout(Some(remaining)).map_err(|error| self.io_error(error, context))?;
            let mut chunk = [0u8; 4096];
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    return Err(TargetError::Disconnected {
                        what: self.what(),
                        detail: format!("QEMU closed the socket ({context})"),
                    })
                }
                Ok(count) => self.rx.extend_from_slice(chunk.get(..count).unwrap_or_default()),
                // A socket timeout may end a little before the deadline: the
                // deadline above decides.
                Err(error)
                    if matches!(error.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                }
                Err(error) => return Err(self.io_error(error, context)),
            }
        }
    }

    /// The next JSON object; blank lines are skipped.
    fn read_message(&mut self, deadline: Instant, context: &str) -> Result<Value, TargetError> {
        loop {
            let line = self.read_line(deadline, context)?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value: Value = serde_json::from_slice(&line).map_err(|error| {
                self.protocol(format!("not JSON ({error}): {:?} ({context})", String::from_utf8_lossy(&line)))
            })?;
            if !value.is_object() {
                return Err(self.protocol(format!("not a JSON object: {value} ({context})")));
            }
            return Ok(value);
        }
    }

    /// Runs `command` and returns its `return` value. An `error` answer is
    /// a `Protocol` error naming QEMU's class and description.
    pub fn execute(&mut self, command: &str, arguments: Option<Value>) -> Result<Value, TargetError> {
        self.execute_raw(command, arguments)?
            .map_err(|error| self.protocol(format!("{command} was refused: {} ({})", error.desc, error.class)))
    }

    /// Runs `command`; QEMU's error answer is returned as `Ok(Err(…))`.
    pub fn execute_raw(
        &mut self,
        command: &str,
        arguments: Option<Value>,
    ) -> Result<Result<Value, QmpError>, TargetError> {
        let mut answers = self.execute_pipelined(&[(command, arguments)])?;
        answers.pop().ok_or_else(|| self.protocol(format!("no answer to {command}")))
    }

    /// Sends `commands` in one write, then reads their answers in order:
    /// QEMU runs them one after the other with no round trip in between.
    pub fn execute_pipelined(
        &mut self,
        commands: &[(&str, Option<Value>)],
    ) -> Result<Vec<Result<Value, QmpError>>, TargetError> {
        let mut bytes = Vec::new();
        let mut ids = Vec::new();
        for (command, arguments) in commands {
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1);
            let mut request = json!({ "execute": command, "id": id });
            if let (Some(arguments), Some(object)) = (arguments.clone(), request.as_object_mut()) {
                object.insert("arguments".to_string(), arguments);
            }
            bytes.extend(request.to_string().into_bytes());
            bytes.push(b'\n');
            ids.push((id, format!("answer to {command}")));
        }
        let context = format!("{} pipelined commands", commands.len());
        self.stream.set_write_timeout(Some(self.timeout)).map_err(|error| self.io_error(error, &context))?;
        self.stream.write_all(&bytes).map_err(|error| self.io_error(error, &context))?;
        ids.into_iter().map(|(id, context)| self.answer(id, &context)).collect()
    }

    /// Waits for the answer with `id`, keeping events and skipping late
    /// answers to earlier commands.
    fn answer(&mut self, id: u64, context: &str) -> Result<Result<Value, QmpError>, TargetError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let message = self.read_message(deadline, context)?;
            if message.get("event").is_some() {
                if self.events.len() >= EVENTS_KEPT_MAX {
                    self.events.remove(0);
                }
                self.events.push(message);
                continue;
            }
            if message.get("id").and_then(Value::as_u64) != Some(id) {
                // The late answer to a command that timed out earlier.
                continue;
            }
            if let Some(value) = message.get("return") {
                return Ok(Ok(value.clone()));
            }
            if let Some(error) = message.get("error") {
                let text = |name: &str| error.get(name).and_then(Value::as_str).unwrap_or("?").to_string();
                return Ok(Err(QmpError { class: text("class"), desc: text("desc") }));
            }
            return Err(self.protocol(format!("an answer with neither return nor error: {message}")));
        }
    }

    pub fn query_status(&mut self) -> Result<VmStatus, TargetError> {
        let value = self.execute("query-status", None)?;
        let running = value.get("running").and_then(Value::as_bool);
        let status = value.get("status").and_then(Value::as_str);
        match (running, status) {
            (Some(running), Some(status)) => Ok(VmStatus { running, status: status.to_string() }),
            _ => Err(self.protocol(format!("query-status answered {value}"))),
        }
    }

    /// One key event: `qcode` (`up`, `down`, `left`, …) pressed or released.
    pub fn send_key(&mut self, qcode: &str, down: bool) -> Result<(), TargetError> {
        self.send_key_raw(qcode, down)?.map_err(|error| {
            self.protocol(format!("key {qcode} {}: {} ({})", if down { "down" } else { "up" }, error.desc, error.class))
        })
    }

    /// Like [`QmpClient::send_key`], with QEMU's refusal (e.g. "VM not
    /// running") as `Ok(Err(…))`.
    pub fn send_key_raw(&mut self, qcode: &str, down: bool) -> Result<Result<(), QmpError>, TargetError> {
        let event = json!({ "type": "key", "data": { "down": down, "key": { "type": "qcode", "data": qcode } } });
        Ok(self.execute_raw("input-send-event", Some(json!({ "events": [event] })))?.map(|_| ()))
    }

    /// The `send-key` command for one key held `hold_ms`. QEMU puts key
    /// events behind a queue timed on the guest's virtual clock: the key goes
    /// down at once when the queue is empty (else after what is queued), up
    /// `hold_ms` of guest time later, and the queue then waits `hold_ms`
    /// more. Several of these sent together (`execute_pipelined`) play one
    /// after the other in guest time, whatever the host does meanwhile. A
    /// halted VM drops them silently (QEMU 7.2 answers `{}`).
    pub fn send_key_held(qcode: &str, hold_ms: u32) -> (&'static str, Option<Value>) {
        let key = json!({ "type": "qcode", "data": qcode });
        ("send-key", Some(json!({ "keys": [key], "hold-time": hold_ms.max(1) })))
    }

    /// Pauses the VM (guest time stops).
    pub fn stop(&mut self) -> Result<(), TargetError> {
        self.execute("stop", None).map(|_| ())
    }

    /// Resumes the VM.
    pub fn cont(&mut self) -> Result<(), TargetError> {
        self.execute("cont", None).map(|_| ())
    }

    /// Resets the machine (QEMU reloads the `-kernel` image); the run state
    /// is kept: a stopped VM stays stopped.
    pub fn system_reset(&mut self) -> Result<(), TargetError> {
        self.execute("system_reset", None).map(|_| ())
    }

    /// A human monitor command (`xp /4wx 0x20000000`, `gdbserver none`);
    /// returns its output.
    pub fn human_monitor_command(&mut self, command_line: &str) -> Result<String, TargetError> {
        let value = self.execute("human-monitor-command", Some(json!({ "command-line": command_line })))?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    /// Asks QEMU to exit. QEMU may close the socket before or after it
    /// answers; both are success.
    pub fn quit(&mut self) -> Result<(), TargetError> {
        match self.execute("quit", None) {
            Ok(_) | Err(TargetError::Disconnected { .. }) => Ok(()),
            Err(error) => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::qmp_server::with_server;
    use std::thread;

    const TEST_TIMEOUT: Duration = Duration::from_millis(500);

    #[test]
    fn handshake_version_and_status() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.handshake();
            let request = server.request().unwrap();
            assert_eq!(request["execute"], "query-status");
            server.send(&format!(
                "{}\r\n",
                json!({ "return": { "status": "prelaunch", "singlestep": false, "running": false }, "id": request["id"] })
            ));
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        assert_eq!(client.version().as_deref(), Some("7.2.22"));
        let status = client.query_status().unwrap();
        assert_eq!(status, VmStatus { running: false, status: "prelaunch".to_string() });
        handle.join().unwrap();
    }

    #[test]
    fn key_events_are_sent_as_qcodes_and_events_in_between_are_kept() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.handshake();
            for down in [true, false] {
                let request = server.request().unwrap();
                assert_eq!(request["execute"], "input-send-event");
                let event = &request["arguments"]["events"][0];
                assert_eq!(event["type"], "key");
                assert_eq!(event["data"]["down"], down);
                assert_eq!(event["data"]["key"], json!({ "type": "qcode", "data": "up" }));
                // An event first, and the answer split across writes.
                server.send("{\"event\": \"RESUME\", \"timestamp\": {\"seconds\": 1, \"microseconds\": 2}}\r\n");
                let answer = format!("{}\r\n", json!({ "return": {}, "id": request["id"] }));
                let (head, tail) = answer.split_at(5);
                server.send(head);
                thread::sleep(Duration::from_millis(20));
                server.send(tail);
            }
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        client.send_key("up", true).unwrap();
        client.send_key("up", false).unwrap();
        let events = client.take_events();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0]["event"], "RESUME");
        handle.join().unwrap();
    }

    #[test]
    fn pipelined_commands_go_in_one_write_and_answers_come_back_in_order() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.handshake();
            let mut ids = Vec::new();
            for hold in [2, 40] {
                let request = server.request().unwrap();
                assert_eq!(request["execute"], "send-key");
                assert_eq!(request["arguments"]["hold-time"], hold);
                assert_eq!(request["arguments"]["keys"][0], json!({ "type": "qcode", "data": "down" }));
                ids.push(request["id"].clone());
            }
            // Both requests were read before any answer was sent: one write.
            server.send(&format!("{}\r\n", json!({ "return": {}, "id": ids[0] })));
            let refusal = json!({ "error": { "class": "GenericError", "desc": "no" }, "id": ids[1] });
            server.send(&format!("{refusal}\r\n"));
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        let commands = [QmpClient::send_key_held("down", 2), QmpClient::send_key_held("down", 40)];
        let answers = client.execute_pipelined(&commands).unwrap();
        assert_eq!(answers.len(), 2);
        assert!(answers[0].is_ok());
        assert_eq!(answers[1].as_ref().unwrap_err().desc, "no");
        handle.join().unwrap();
    }

    #[test]
    fn an_error_answer_names_class_and_description() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.handshake();
            let request = server.request().unwrap();
            server.send(&format!(
                "{}\r\n",
                json!({ "error": { "class": "GenericError", "desc": "VM not running" }, "id": request["id"] })
            ));
            let request = server.request().unwrap();
            server.send(&format!(
                "{}\r\n",
                json!({ "error": { "class": "GenericError", "desc": "VM not running" }, "id": request["id"] })
            ));
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        let refused = client.send_key_raw("down", true).unwrap().unwrap_err();
        assert_eq!(refused.desc, "VM not running");
        let error = client.send_key("down", true).unwrap_err();
        assert!(matches!(error, TargetError::Protocol { .. }), "{error}");
        assert!(error.to_string().contains("VM not running"), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn a_late_answer_to_an_earlier_command_is_skipped() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.handshake();
            let request = server.request().unwrap();
            let id = request["id"].as_u64().unwrap();
            server.send(&format!("{}\n", json!({ "return": { "stale": true }, "id": id - 1 })));
            server.send(&format!("{}\n", json!({ "return": "ok", "id": id })));
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        assert_eq!(client.execute("stop", None).unwrap(), json!("ok"));
        handle.join().unwrap();
    }

    #[test]
    fn a_closed_socket_is_disconnected() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.handshake();
            server.request().unwrap();
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        let started = Instant::now();
        let error = client.cont().unwrap_err();
        assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
        // Noticed, not waited out: a loaded host only bounds it loosely.
        assert!(started.elapsed() < Duration::from_secs(60));
        handle.join().unwrap();
    }

    #[test]
    fn quit_accepts_the_socket_closing() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.handshake();
            server.request().unwrap();
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        client.quit().unwrap();
        handle.join().unwrap();
    }

    #[test]
    fn a_silent_server_times_out() {
        let (done_sender, done_receiver) = std::sync::mpsc::channel::<()>();
        let (_dir, path, handle) = with_server(move |mut server| {
            server.handshake();
            server.request().unwrap();
            let _ = done_receiver.recv();
        });
        let mut client = QmpClient::connect(&path, TEST_TIMEOUT).unwrap();
        let started = Instant::now();
        let error = client.query_status().unwrap_err();
        assert!(matches!(error, TargetError::Timeout { .. }), "{error}");
        assert!(started.elapsed() < Duration::from_secs(60), "gave up, not waited for ever");
        done_sender.send(()).unwrap();
        handle.join().unwrap();
    }

    #[test]
    fn a_server_that_never_greets_times_out() {
        let (done_sender, done_receiver) = std::sync::mpsc::channel::<()>();
        let (_dir, path, handle) = with_server(move |_server| {
            let _ = done_receiver.recv();
        });
        let error = QmpClient::connect(&path, TEST_TIMEOUT).unwrap_err();
        assert!(matches!(error, TargetError::Timeout { .. }), "{error}");
        done_sender.send(()).unwrap();
        handle.join().unwrap();
    }

    #[test]
    fn garbage_is_a_protocol_error() {
        let (_dir, path, handle) = with_server(|mut server| {
            server.send("this is not json\n");
        });
        let error = QmpClient::connect(&path, TEST_TIMEOUT).unwrap_err();
        assert!(matches!(error, TargetError::Protocol { .. }), "{error}");
        handle.join().unwrap();
    }

    #[test]
    fn no_socket_is_disconnected() {
        let dir = tempfile::tempdir().unwrap();
        let error = QmpClient::connect(&dir.path().join("missing.sock"), TEST_TIMEOUT).unwrap_err();
        assert!(matches!(error, TargetError::Disconnected { .. }), "{error}");
    }
}
