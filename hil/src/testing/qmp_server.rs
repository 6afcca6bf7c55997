//! The server side of QEMU's QMP, for tests: a [`Connection`] that reads
//! requests as JSON and sends lines as given, on a Unix socket in a
//! temporary folder.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::thread;

use serde_json::{json, Value};

/// QEMU 7.2's greeting, as Debian's build sends it.
pub const GREETING: &str = r#"{"QMP": {"version": {"qemu": {"micro": 22, "minor": 2, "major": 7}, "package": "Debian 1:7.2+dfsg-7+deb12u18"}, "capabilities": ["oob"]}}"#;

/// One client, seen from the server.
pub struct Connection {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Connection {
    /// The next request, or `None` when the client went away.
    pub fn request(&mut self) -> Option<Value> {
        let mut line = String::new();
        if self.reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        Some(serde_json::from_str(&line).expect("a JSON request"))
    }

    pub fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).expect("the client listens");
    }

    /// Greets and negotiates capabilities.
    pub fn handshake(&mut self) {
        self.send(&format!("{GREETING}\r\n"));
        let request = self.request().expect("qmp_capabilities");
        assert_eq!(request["execute"], "qmp_capabilities");
        self.send(&format!("{}\r\n", json!({ "return": {}, "id": request["id"] })));
    }
}

/// A socket in a new temporary folder, and a thread running `script` for
/// the first client to connect to it. Keep the folder while the test runs.
pub fn with_server(
    script: impl FnOnce(Connection) + Send + 'static,
) -> (tempfile::TempDir, PathBuf, thread::JoinHandle<()>) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("qmp.sock");
    let listener = UnixListener::bind(&path).expect("a socket");
    let handle = thread::spawn(move || {
        let (stream, _) = listener.accept().expect("a client");
        let writer = stream.try_clone().expect("a second handle");
        script(Connection { reader: BufReader::new(stream), writer });
    });
    (dir, path, handle)
}
