//! The browser agent as an MCP server for AI apps (Claude Desktop, Claude Code, Cursor, ...).
//!
//! Two processes are involved, started by two different parents, and this one binary is both:
//! - Chrome starts it as the extension's native messaging host when the extension connects
//!   (only while the user has turned the MCP setting on), passing the caller's origin
//!   `chrome-extension://ID/`. It checks that origin, then relays length-prefixed JSON between
//!   Chrome (stdin/stdout) and a Unix socket in a folder only this user can enter (`relay`).
//! - The AI app starts it with no arguments as an MCP server over stdio (`tools`, with the
//!   official SDK `rmcp`). On its first tool call it connects to that socket (`link`).
//!
//! Why a socket between them: Chrome gives a native host's stdio to the extension alone and
//! starts hosts only on the extension's request, while MCP clients start their server
//! themselves. The socket is per user (0600 in a 0700 folder), so only the user's own programs
//! reach the browser, and it exists only while the extension holds its port open. Both
//! processes only carry messages: the agent, its guards and approvals stay in the extension's
//! core.

mod framing;
mod link;
mod pairing;
mod relay;
mod socket;
mod stdio;
mod tools;

use agent_core::mcp::HOST_NAME;
use rmcp::ServiceExt;
use serde_json::json;
use std::process::ExitCode;

/// The extension's id, fixed by the `key` in manifest.json (a test checks that they agree).
pub const EXTENSION_ID: &str = "madcdghoclaocbnkmfcfigoogkenfpjm";

const USAGE: &str = "usage:
  rust-browser-agent-mcp                  serve MCP over stdio (what AI apps run)
  rust-browser-agent-mcp --manifest PATH  print Chrome's native messaging host manifest for the binary at PATH
(Chrome runs it with the extension's origin as argument, as the extension's native messaging host.)";

/// The native messaging host manifest for Chrome and Chromium: only our extension may start it.
fn host_manifest(path: &str) -> serde_json::Value {
    json!({
        "name": HOST_NAME,
        "description": "Rust Browser Agent: lets AI apps use the agent in this browser (MCP)",
        "path": path,
        "type": "stdio",
        "allowed_origins": [format!("chrome-extension://{EXTENSION_ID}/")],
    })
}

/// Whether Chrome started us for our own extension (the manifest's `allowed_origins` already
/// says so; checked again in case the manifest was edited).
fn is_our_extension(origin: &str) -> bool {
    origin == format!("chrome-extension://{EXTENSION_ID}/")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("rust-browser-agent-mcp: cannot start: {err}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] => runtime.block_on(serve_mcp()),
        ["--manifest", path] => {
            println!("{:#}", host_manifest(path));
            Ok(())
        }
        // Chrome passes the origin, and on Windows a window handle after it.
        [origin, ..] if origin.starts_with("chrome-extension://") => match is_our_extension(origin) {
            true => runtime.block_on(relay::run()),
            false => {
                Err(format!("refusing to serve {origin}: only the Rust Browser Agent extension may use this host"))
            }
        },
        _ => Err(USAGE.to_string()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rust-browser-agent-mcp: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_mcp() -> Result<(), String> {
    let agent = tools::BrowserAgent::default();
    // The app is gone once it closes our stdin: what its calls wait for in the browser (the
    // user's answer) ends now, not when rmcp stops waiting for their answers (5 s later), which
    // would keep the next app out meanwhile.
    let link = agent.link();
    let service = agent
        .serve(stdio::transport(async move { link.close().await }))
        .await
        .map_err(|err| format!("the MCP client did not start a session: {err}"))?;
    service.waiting().await.map(|_| ()).map_err(|err| format!("the MCP session failed: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use sha2::Digest;

    /// Chrome's id of an unpacked extension with a `key`: the SHA-256 of the key, its first 32
    /// hex digits written with the letters a to p.
    fn id_from_key(key: &str) -> String {
        let der = base64::engine::general_purpose::STANDARD.decode(key).expect("the key is base64");
        let digest = sha2::Sha256::digest(der);
        digest.iter().take(16).flat_map(|byte| [byte >> 4, byte & 0xf]).map(|n| (b'a' + n) as char).collect()
    }

    #[test]
    fn the_extension_id_is_the_one_its_manifest_key_gives() {
        let manifest: serde_json::Value =
            serde_json::from_str(include_str!("../../../manifest.json")).expect("manifest.json is JSON");
        assert_eq!(id_from_key(manifest["key"].as_str().expect("manifest.json has a key")), EXTENSION_ID);
        // Asked for when the user turns MCP on, given back when it is turned off.
        assert!(manifest["optional_permissions"].as_array().unwrap().contains(&json!("nativeMessaging")));
        assert!(!manifest["permissions"].as_array().unwrap().contains(&json!("nativeMessaging")));
    }

    #[test]
    fn only_our_extension_may_start_the_host() {
        let manifest = host_manifest("/opt/agent/rust-browser-agent-mcp");
        assert_eq!(manifest["allowed_origins"], json!([format!("chrome-extension://{EXTENSION_ID}/")]));
        assert_eq!((manifest["name"].as_str(), manifest["type"].as_str()), (Some(HOST_NAME), Some("stdio")));
        assert!(is_our_extension(&format!("chrome-extension://{EXTENSION_ID}/")));
        assert!(!is_our_extension("chrome-extension://abcdefghijklmnopabcdefghijklmnop/"));
        assert!(!is_our_extension(&format!("chrome-extension://{EXTENSION_ID}")));
    }
}
