//! The user's named secrets: the model only ever writes `<secret>name</secret>`; the value is
//! filled in when the action runs, only on the sites the user allowed for it, and every text the
//! model or the logs would see has the values replaced by their placeholders again.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Secret {
    pub name: String,
    pub value: String,
    /// Sites where the secret may be typed (domains with their subdomains); empty: any site.
    pub domains: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Secrets(Vec<Secret>);

/// Secrets shorter than this are not redacted from page text (they would match everywhere).
const MIN_REDACTED_LEN: usize = 3;

impl Secrets {
    pub fn new(secrets: Vec<Secret>) -> Result<Secrets, String> {
        for secret in &secrets {
            let valid_name = !secret.name.is_empty()
                && secret.name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !valid_name {
                return Err(format!("the secret name \"{}\" may only use letters, digits, _ - and .", secret.name));
            }
            if secret.value.trim().is_empty() {
                return Err(format!("the secret \"{}\" has no value", secret.name));
            }
        }
        Ok(Secrets(secrets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn list(&self) -> &[Secret] {
        &self.0
    }

    /// For the system prompt: the names the model may use, and where.
    pub fn prompt(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let lines: Vec<String> = self
            .0
            .iter()
            .map(|s| {
                let sites = if s.domains.is_empty() { "any site".to_string() } else { s.domains.join(", ") };
                format!("- <secret>{}</secret> (on {sites})", s.name)
            })
            .collect();
        Some(format!(
            "The user gave you secrets to type without seeing them. Write the placeholder in input_text's text, exactly as shown; it is replaced by the value when typed:\n{}",
            lines.join("\n")
        ))
    }

    /// Replaces placeholders in `text` with their values for typing on `url`. Returns the text and
    /// whether it consisted only of placeholders the user allowed here (which is their consent).
    pub fn fill(&self, text: &str, url: &str) -> Result<(String, bool), String> {
        let mut out = String::new();
        let mut rest = text;
        let mut used_any = false;
        while let Some(start) = rest.find("<secret>") {
            let after = &rest[start + "<secret>".len()..];
            let end = after.find("</secret>").ok_or("a <secret> placeholder is not closed with </secret>")?;
            let name = after[..end].trim();
            let secret = self.0.iter().find(|s| s.name == name).ok_or_else(|| {
                let names: Vec<&str> = self.0.iter().map(|s| s.name.as_str()).collect();
                format!("there is no secret named \"{name}\" (the secrets are: {})", names.join(", "))
            })?;
            if !allowed_on(secret, url) {
                return Err(format!("the secret \"{name}\" may only be used on {}", secret.domains.join(", ")));
            }
            out.push_str(&rest[..start]);
            out.push_str(&secret.value);
            used_any = true;
            rest = &after[end + "</secret>".len()..];
        }
        out.push_str(rest);
        Ok((out, used_any && strip_placeholders(text).trim().is_empty()))
    }

    /// Every secret value in `text` replaced by its placeholder.
    pub fn redact(&self, text: &str) -> String {
        let mut text = text.to_string();
        for secret in self.0.iter().filter(|s| s.value.len() >= MIN_REDACTED_LEN) {
            if text.contains(&secret.value) {
                text = text.replace(&secret.value, &format!("<secret>{}</secret>", secret.name));
            }
        }
        text
    }
}

fn strip_placeholders(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<secret>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</secret>") {
            Some(end) => rest = &rest[start + end + "</secret>".len()..],
            None => return out + &rest[start..],
        }
    }
    out + rest
}

fn allowed_on(secret: &Secret, url: &str) -> bool {
    let host = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default();
    secret.allowed_on_host(&host)
}

impl Secret {
    /// Whether the secret may go to `host` (lower case): any host when no sites are listed.
    pub fn allowed_on_host(&self, host: &str) -> bool {
        self.domains.is_empty()
            || self.domains.iter().any(|domain| {
                let domain = domain.trim().trim_start_matches("*.").to_ascii_lowercase();
                host == domain || host.ends_with(&format!(".{domain}"))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Secrets {
        Secrets::new(vec![
            Secret {
                name: "work_password".into(),
                value: "hunter2!".into(),
                domains: vec!["login.example.com".into()],
            },
            Secret { name: "email".into(), value: "me@example.com".into(), domains: vec![] },
        ])
        .unwrap()
    }

    #[test]
    fn fills_placeholders_only_where_allowed() {
        let s = secrets();
        assert_eq!(
            s.fill("<secret>work_password</secret>", "https://login.example.com/x"),
            Ok(("hunter2!".into(), true))
        );
        assert_eq!(s.fill("to: <secret>email</secret>", "https://a.test/"), Ok(("to: me@example.com".into(), false)));
        assert_eq!(
            s.fill("<secret>work_password</secret>", "https://evil.test/"),
            Err("the secret \"work_password\" may only be used on login.example.com".into())
        );
        assert!(s.fill("<secret>nope</secret>", "https://a.test/").unwrap_err().contains("no secret named \"nope\""));
        assert_eq!(s.fill("plain", "https://a.test/"), Ok(("plain".into(), false)));
    }

    #[test]
    fn redacts_values_back_to_placeholders() {
        assert_eq!(
            secrets().redact("value=me@example.com and hunter2!"),
            "value=<secret>email</secret> and <secret>work_password</secret>"
        );
    }

    #[test]
    fn a_blank_value_is_no_secret() {
        // Redacting it would blank out every space the model and the panel see.
        let blank = Secret { name: "pin".into(), value: "  ".into(), domains: vec![] };
        assert_eq!(Secrets::new(vec![blank]), Err("the secret \"pin\" has no value".into()));
    }

    #[test]
    fn lists_names_for_the_model_never_values() {
        let prompt = secrets().prompt().unwrap();
        assert!(prompt.contains("<secret>work_password</secret> (on login.example.com)"));
        assert!(!prompt.contains("hunter2"));
    }
}
