//! Where the two processes meet: a Unix socket only this user can reach.

use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use tokio::net::{UnixListener, UnixStream};

const SOCKET_NAME: &str = "mcp.sock";
const DIR_NAME: &str = "rust-browser-agent";

/// The socket's folder: in `$XDG_RUNTIME_DIR` (per user, 0700, cleared at logout) where there is
/// one, else in the user's own cache folder (macOS has no runtime dir).
pub fn socket_dir() -> io::Result<PathBuf> {
    let base = match std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME")
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "neither XDG_RUNTIME_DIR nor HOME is set"))?;
            PathBuf::from(home).join(".cache")
        }
    };
    Ok(base.join(DIR_NAME))
}

pub fn socket_path() -> io::Result<PathBuf> {
    Ok(socket_dir()?.join(SOCKET_NAME))
}

/// Listens on the socket, readable and writable by this user alone (its folder too). A socket
/// file left by a host that died is replaced; one another host still serves is not taken over.
pub async fn listen() -> io::Result<UnixListener> {
    let dir = socket_dir()?;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    let path = dir.join(SOCKET_NAME);
    if path.exists() {
        if UnixStream::connect(&path).await.is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another browser is already connected to the agent's MCP server at {}", path.display()),
            ));
        }
        std::fs::remove_file(&path)?;
    }
    let listener = UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// Connects to the socket a browser's host listens on (at `path`, the usual place when `None`).
pub async fn connect(path: Option<&Path>) -> io::Result<UnixStream> {
    match path {
        Some(path) => UnixStream::connect(path).await,
        None => UnixStream::connect(socket_path()?).await,
    }
}

/// Removes the socket file (when the browser's host ends).
pub fn remove() {
    if let Ok(path) = socket_path() {
        let _ = std::fs::remove_file(path);
    }
}
