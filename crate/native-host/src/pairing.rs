//! The tokens the browser gave the apps the user allowed "Always": the MCP server of each app
//! shows its token with every call, and the extension, which keeps only a hash of it beside the
//! app's name (shown and revocable in its settings), lets the call through without asking.
//!
//! Why the extension decides and this side only keeps the token: the user's answer must be kept
//! where it is enforced and can be seen and withdrawn (the settings), and the MCP server is a
//! program any of the user's processes can start. The token tells apps apart: an app that only
//! claims another's name is asked. It is no defence against programs running as the user, which
//! could read this file (0600, in a 0700 folder) as they could read the browser's profile.

use serde_json::{Map, Value};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

const DIR_NAME: &str = "rust-browser-agent";
const FILE_NAME: &str = "apps.json";

/// The file: in `$XDG_CONFIG_HOME` where set, else in `~/.config`.
pub fn tokens_path() -> io::Result<PathBuf> {
    let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME")
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "neither XDG_CONFIG_HOME nor HOME is set"))?;
            PathBuf::from(home).join(".config")
        }
    };
    Ok(base.join(DIR_NAME).join(FILE_NAME))
}

/// Where the tokens are kept (a test uses its own file).
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    path: Option<PathBuf>,
}

impl Tokens {
    #[cfg(test)]
    pub fn at(path: PathBuf) -> Tokens {
        Tokens { path: Some(path) }
    }

    fn path(&self) -> io::Result<PathBuf> {
        match &self.path {
            Some(path) => Ok(path.clone()),
            None => tokens_path(),
        }
    }

    fn read(&self) -> Map<String, Value> {
        let Ok(path) = self.path() else { return Map::new() };
        let text = std::fs::read_to_string(path).unwrap_or_default();
        match serde_json::from_str(&text) {
            Ok(Value::Object(tokens)) => tokens,
            _ => Map::new(),
        }
    }

    /// The token the browser gave the app named `client`, if any.
    pub fn get(&self, client: &str) -> Option<String> {
        self.read().get(client).and_then(Value::as_str).map(str::to_string)
    }

    /// Keeps `token` for the app named `client` (replacing an older one), readable by this user only.
    pub fn save(&self, client: &str, token: &str) -> io::Result<()> {
        let path = self.path()?;
        let dir = path.parent().ok_or_else(|| io::Error::other("the token file has no folder"))?;
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let mut tokens = self.read();
        tokens.insert(client.to_string(), Value::from(token));
        let text = serde_json::to_string_pretty(&Value::Object(tokens)).map_err(io::Error::other)?;
        // Written aside and renamed, so that two apps saving at once leave a whole file.
        let aside = path.with_extension(format!("json.{}", std::process::id()));
        std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&aside)?;
        std::fs::set_permissions(&aside, std::fs::Permissions::from_mode(0o600))?;
        std::fs::write(&aside, text)?;
        std::fs::rename(&aside, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_kept_per_app_for_this_user_only() {
        let dir = std::env::temp_dir().join(format!("rba-tokens-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let tokens = Tokens::at(dir.join("conf").join(FILE_NAME));
        assert_eq!(tokens.get("Claude Code"), None);
        tokens.save("Claude Code", "abc").unwrap();
        tokens.save("Cursor", "def").unwrap();
        tokens.save("Claude Code", "ghi").unwrap();
        assert_eq!((tokens.get("Claude Code").as_deref(), tokens.get("Cursor").as_deref()), (Some("ghi"), Some("def")));
        assert_eq!(tokens.get("claude code"), None, "names are compared exactly");
        let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.join("conf").join(FILE_NAME)), 0o600);
        assert_eq!(mode(&dir.join("conf")), 0o700);
        // A damaged file is no token, and is replaced by the next one saved.
        std::fs::write(dir.join("conf").join(FILE_NAME), "{not json").unwrap();
        assert_eq!(tokens.get("Cursor"), None);
        tokens.save("Cursor", "jkl").unwrap();
        assert_eq!(tokens.get("Cursor").as_deref(), Some("jkl"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
