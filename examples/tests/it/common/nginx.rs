//! nginx from Debian's package, run by a test in the foreground as one
//! process (`master_process off`), with its configuration, pid file, logs
//! and temp files in a scratch directory; killed when dropped.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::Scratch;

/// The longest nginx may take to listen.
const START: Duration = Duration::from_secs(20);

/// nginx, or `None` after saying loudly why the test does not run; under
/// `CI=true` a missing nginx fails the test.
pub fn nginx() -> Option<PathBuf> {
    let found = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists());
    if found.is_none() {
        let message = "nginx is not installed (Debian: apt-get install nginx): a test behind nginx DID NOT RUN";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
        eprintln!("\n!!! {message} !!!\n");
    }
    found
}

/// A running nginx.
pub struct Nginx {
    child: Child,
    scratch: Scratch,
}

impl Nginx {
    /// Starts `nginx` listening on 127.0.0.1 `port`, with `files` (name,
    /// contents) written beside its configuration, and `http` the body of
    /// its `http` block, given the directory they are in (temp paths and
    /// the error log are set here); waits until it listens.
    pub fn start(
        nginx: &Path,
        port: u16,
        files: &[(&str, &str)],
        http: impl FnOnce(&str) -> String,
    ) -> Self {
        let scratch = Scratch::new("nginx");
        let dir = scratch.file("");
        std::fs::create_dir_all(dir.join("temp")).unwrap();
        for (name, contents) in files {
            std::fs::write(dir.join(name), contents).unwrap();
        }
        let dir = dir.display().to_string();
        let http = http(&dir);
        let conf = format!(
            r#"daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{
    worker_connections 256;
}}
http {{
    client_body_temp_path {dir}/temp/body;
    proxy_temp_path {dir}/temp/proxy;
    fastcgi_temp_path {dir}/temp/fastcgi;
    uwsgi_temp_path {dir}/temp/uwsgi;
    scgi_temp_path {dir}/temp/scgi;
{http}}}
"#
        );
        let conf_path = scratch.file("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let child = Command::new(nginx)
            .arg("-p")
            .arg(scratch.file(""))
            .arg("-c")
            .arg(&conf_path)
            .arg("-e")
            .arg(scratch.file("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let mut nginx = Nginx { child, scratch };
        let deadline = Instant::now() + START;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = nginx.child.try_wait() {
                panic!(
                    "nginx exited ({status}):\n{}",
                    std::fs::read_to_string(nginx.file("error.log")).unwrap_or_default()
                );
            }
            assert!(
                Instant::now() < deadline,
                "nginx did not listen in {START:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    /// A file in nginx's directory (its logs, say).
    pub fn file(&self, name: &str) -> PathBuf {
        self.scratch.file(name)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
