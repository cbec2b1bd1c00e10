//! What came of a navigation, in a sentence the model can act on: the page that opened (after
//! redirects), the server's error status, the browser's error page, a file downloaded instead of
//! shown. The browser only reports what happened (`browser::Navigation`); the meaning is here.

use crate::browser::{HistoryStep, Navigation};
use crate::text::truncate_words;

/// The browser's code for a navigation that ended without a page of its own.
const ABORTED: &str = "net::ERR_ABORTED";
/// The browser's error page for an error status that came without a body to show.
const RESPONSE_CODE_FAILURE: &str = "net::ERR_HTTP_RESPONSE_CODE_FAILURE";
/// The longest file name quoted to the model (it comes from the server).
const MAX_FILE_NAME_CHARS: usize = 100;

/// What a navigation came to.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Arrival {
    /// A page opened (with a status that is not an error, or none known).
    Page,
    /// The server answered with this error status (a page of its own, or the browser's error page
    /// when it sent none).
    HttpError(u16),
    /// The browser shows its error page for this network error.
    NetError(String),
    /// The response was a file, which the browser downloaded instead of showing it; its name when
    /// the response gave one.
    Download(Option<String>),
    /// No page came: the response had nothing to show (its status), or the navigation was
    /// cancelled before any answer.
    Nothing(Option<u16>),
}

impl Arrival {
    pub(super) fn of(navigation: &Navigation) -> Arrival {
        let error = navigation.error.as_deref();
        let status = navigation.status;
        if let Some(status) = status.filter(|status| *status >= 400) {
            if navigation.committed || error == Some(RESPONSE_CODE_FAILURE) {
                return Arrival::HttpError(status);
            }
        }
        match error {
            Some(ABORTED) if !navigation.committed => {
                let disposition = navigation.disposition.as_deref();
                let shown_as_file =
                    status.is_some_and(|status| (200..300).contains(&status) && status != 204 && status != 205);
                if disposition.is_some_and(is_attachment) || shown_as_file {
                    Arrival::Download(disposition.and_then(file_name))
                } else {
                    Arrival::Nothing(status)
                }
            }
            // Stopped after the page came: the page is there.
            Some(ABORTED) | None => Arrival::Page,
            Some(error) => Arrival::NetError(error.to_string()),
        }
    }

    /// Whether the action did what was asked: a page opened, or the file was downloaded.
    fn ok(&self) -> bool {
        matches!(self, Arrival::Page | Arrival::Download(_))
    }

    /// Whether the tab shows something new (a page, an error page), so that the actions chosen for
    /// the page before no longer apply.
    fn left_page(&self) -> bool {
        matches!(self, Arrival::Page | Arrival::HttpError(_) | Arrival::NetError(_))
    }

    /// Why no usable page came, and what to do about it.
    fn problem(&self) -> Option<(String, &'static str)> {
        Some(match self {
            Arrival::Page => return None,
            Arrival::HttpError(status) => http_error(*status),
            Arrival::NetError(code) => net_error(code),
            Arrival::Download(name) => (
                match name {
                    Some(name) => {
                        format!("it is a file, \"{name}\", which the browser downloaded instead of showing it")
                    }
                    None => "it is a file, which the browser downloaded instead of showing it".into(),
                },
                "The files the task downloaded are named after this, with whether the agent can read them.",
            ),
            Arrival::Nothing(Some(status @ (204 | 205))) => (
                format!("the server answered {} with nothing to show", status_name(*status)),
                "Try another address, or another way to the page.",
            ),
            Arrival::Nothing(Some(status)) => (
                format!("the server answered {} and the browser showed nothing", status_name(*status)),
                "Try another address, or another way to the page.",
            ),
            Arrival::Nothing(None) => (
                "the navigation was cancelled before any page came (by the page, the browser or another navigation)"
                    .into(),
                "Look at the page as it is now, and try again if it is still needed.",
            ),
        })
    }
}

/// What the model is told of an action that navigated: the sentence, whether it worked, and
/// whether the page the step's other actions were chosen for is gone.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Said {
    pub text: String,
    pub ok: bool,
    pub left_page: bool,
}

impl Said {
    fn new(arrival: &Arrival, text: String) -> Said {
        Said { text, ok: arrival.ok(), left_page: arrival.left_page() }
    }
}

/// Opening `requested` in the current tab (`go_to_url`, `search`).
pub(super) fn opened(requested: &str, navigation: &Navigation) -> Said {
    let arrival = Arrival::of(navigation);
    let place = place(requested, navigation);
    let text = match (&arrival, arrival.problem()) {
        (_, None) => format!("Opened {place}."),
        (Arrival::HttpError(_), Some((reason, advice))) => format!("Opened {place}, but {reason}. {advice}"),
        (Arrival::NetError(_), Some((reason, advice))) => {
            format!("Could not open {place}: {reason}; the tab shows the browser's error page. {advice}")
        }
        (_, Some((reason, advice))) => {
            format!("{requested} did not open as a page: {reason}; the tab still shows {}. {advice}", navigation.url)
        }
    };
    Said::new(&arrival, text)
}

/// Where a new tab is once its navigation ended.
pub(super) enum NewTab {
    /// Open, with this name; it is the current tab.
    Open(String),
    /// Closed again by the browser (it does so with a tab opened only for what turned out to be a
    /// download); the current tab, so named, stays current.
    ClosedAgain(String),
}

/// Whether the browser may have closed a new tab again: nothing was shown in it.
pub(super) fn may_close_new_tab(navigation: &Navigation) -> bool {
    !Arrival::of(navigation).left_page()
}

/// Opening `requested` in a new tab.
pub(super) fn opened_in_new_tab(requested: &str, navigation: &Navigation, tab: &NewTab) -> Said {
    let arrival = Arrival::of(navigation);
    let place = match redirected(requested, navigation) {
        Some(to) => format!("{requested} (redirected to {to})"),
        None => requested.to_string(),
    };
    let text = match (tab, &arrival, arrival.problem()) {
        (NewTab::Open(alias), _, None) => format!("Opened {place} in a new tab, {alias}; it is now the current tab."),
        (NewTab::Open(alias), Arrival::HttpError(_), Some((reason, advice))) => {
            format!("Opened {place} in a new tab, {alias}, which is now the current tab, but {reason}. {advice}")
        }
        (NewTab::Open(alias), Arrival::NetError(_), Some((reason, advice))) => format!(
            "Could not open {place}: {reason}; the new tab, {alias}, shows the browser's error page and is now the current tab. {advice}"
        ),
        (NewTab::Open(alias), _, Some((reason, advice))) => format!(
            "{requested} did not open as a page: {reason}; the new tab, {alias}, stays empty and is now the current tab. {advice}"
        ),
        (NewTab::ClosedAgain(current), _, problem) => {
            let (reason, advice) = problem.unwrap_or_else(|| ("the browser closed its tab".into(), ""));
            format!(
                "{requested} did not open as a page: {reason}; the browser closed the new tab again, and the current tab is still {current}. {advice}"
            )
            .trim_end()
            .to_string()
        }
    };
    // Only a tab that stays open replaces the page the step's other actions were chosen for.
    Said { left_page: matches!(tab, NewTab::Open(_)), ..Said::new(&arrival, text) }
}

/// Going back, forward, or reloading.
pub(super) fn moved(step: HistoryStep, navigation: &Navigation) -> Said {
    let arrival = Arrival::of(navigation);
    let url = &navigation.url;
    let (went, to) = match step {
        HistoryStep::Back => ("Went back", format!("Went back to {url}")),
        HistoryStep::Forward => ("Went forward", format!("Went forward to {url}")),
        HistoryStep::Reload => ("Reloaded the page", format!("Reloaded {url}")),
    };
    let text = match (&arrival, arrival.problem()) {
        (_, None) if url.is_empty() => format!("{went}."),
        (_, None) => format!("{to}."),
        (Arrival::HttpError(_), Some((reason, advice))) => format!("{to}, but {reason}. {advice}"),
        (Arrival::NetError(_), Some((reason, advice))) => {
            format!("{went}, but {url} could not load: {reason}; the tab shows the browser's error page. {advice}")
        }
        (_, Some((reason, advice))) => {
            format!("{went}, but no page opened: {reason}; the tab still shows {url}. {advice}")
        }
    };
    Said::new(&arrival, text)
}

/// The address asked for, and where it led if it redirected.
fn place(requested: &str, navigation: &Navigation) -> String {
    match redirected(requested, navigation) {
        Some(to) => format!("{requested}, which redirected to {to}"),
        None => requested.to_string(),
    }
}

/// Where the tab ended up, when that is not the address asked for.
fn redirected<'a>(requested: &str, navigation: &'a Navigation) -> Option<&'a str> {
    let shown = navigation.url.as_str();
    (!shown.is_empty() && !same_address(requested, shown)).then_some(shown)
}

/// Whether two addresses are the same once written the standard way (the browser adds the `/` of
/// a bare host, lower-cases the host...).
fn same_address(a: &str, b: &str) -> bool {
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// An error status, why it matters, and what to do.
fn http_error(status: u16) -> (String, &'static str) {
    let answered = format!("the server answered {}", status_name(status));
    let find = "Check the address, or find the page from the site's home page or with a search.";
    match status {
        404 => (format!("{answered}: there is no page at this address"), find),
        410 => (format!("{answered}: the page was removed"), find),
        401 => (
            format!("{answered}: the page needs a sign-in"),
            "Sign in if the task allows it, or tell the user the page needs their account.",
        ),
        403 => (
            format!("{answered}: the site refuses access to this page"),
            "The page may need the user's sign-in or be closed to visitors: try another way to the information, or tell the user.",
        ),
        429 => (
            format!("{answered}: the site limits how often it is visited"),
            "Wait before trying again, or use another site.",
        ),
        500..=599 => (
            format!("{answered}: the site failed to make the page"),
            "Try again later, or find the information on another site.",
        ),
        _ => (format!("{answered}: the site refused the request"), find),
    }
}

/// An HTTP status with its name, as `404 (Not Found)`.
fn status_name(status: u16) -> String {
    let name = match status {
        204 => "No Content",
        205 => "Reset Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        414 => "URI Too Long",
        418 => "I'm a teapot",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return status.to_string(),
    };
    format!("{status} ({name})")
}

/// A network error the browser shows its error page for, in words, and what to do about it.
fn net_error(code: &str) -> (String, &'static str) {
    let another_site = "Check the address, or try another site.";
    let name = code.strip_prefix("net::").unwrap_or(code);
    let (reason, advice) = match name {
        "ERR_CONNECTION_REFUSED" => {
            ("the server refused the connection", "Check the address (its host and port), or try another site.")
        }
        "ERR_NAME_NOT_RESOLVED" => (
            "no server has this name (the address's host does not exist)",
            "Check the spelling of the address, or search for the site instead.",
        ),
        "ERR_INTERNET_DISCONNECTED" | "ERR_NAME_RESOLUTION_FAILED" | "ERR_NETWORK_CHANGED" => (
            "the browser could not reach the network",
            "The connection may be down: try again in a moment, or tell the user.",
        ),
        "ERR_CONNECTION_TIMED_OUT" | "ERR_TIMED_OUT" => {
            ("the server did not answer in time", "Try again later, or try another site.")
        }
        "ERR_CONNECTION_RESET" | "ERR_CONNECTION_CLOSED" | "ERR_CONNECTION_ABORTED" | "ERR_EMPTY_RESPONSE" => {
            ("the server cut the connection before sending a page", "Try again, or try another site.")
        }
        "ERR_ADDRESS_UNREACHABLE" | "ERR_ADDRESS_INVALID" | "ERR_CONNECTION_FAILED" => {
            ("the server's address cannot be reached", another_site)
        }
        "ERR_UNSAFE_PORT" => (
            "the browser does not connect to this port, which it blocks as unsafe",
            "Use the site's usual address, without this port.",
        ),
        "ERR_TOO_MANY_REDIRECTS" => ("the site redirects in a loop", "Try the site's home page, or another site."),
        "ERR_BLOCKED_BY_CLIENT" => (
            "the browser blocked it (the user's site lists, or a content blocker)",
            "Do not try to reach it another way; use another site, or tell the user.",
        ),
        "ERR_BLOCKED_BY_ADMINISTRATOR" => (
            "the browser's administrator blocks this site",
            "Do not try to reach it another way; use another site, or tell the user.",
        ),
        "ERR_HTTP_RESPONSE_CODE_FAILURE" => {
            ("the server answered with an error and sent no page", "Check the address, or try again later.")
        }
        "ERR_FILE_NOT_FOUND" => ("there is no such file", "Check the address."),
        "ERR_INVALID_URL" | "ERR_UNKNOWN_URL_SCHEME" | "ERR_DISALLOWED_URL_SCHEME" => {
            ("the browser cannot open this kind of address", "Use an http or https address.")
        }
        _ if name.starts_with("ERR_CERT_")
            || name.starts_with("ERR_SSL_")
            || name == "ERR_BAD_SSL_CLIENT_AUTH_CERT" =>
        {
            (
                "the site's secure connection cannot be trusted",
                "Do not try to get around it: try another site, or tell the user.",
            )
        }
        _ => ("the browser could not load it", another_site),
    };
    (format!("{reason} ({code})"), advice)
}

/// Whether a `Content-Disposition` header asks for the response to be saved as a file.
fn is_attachment(disposition: &str) -> bool {
    disposition.split(';').next().is_some_and(|kind| kind.trim().eq_ignore_ascii_case("attachment"))
}

/// The file name a `Content-Disposition` header gives (RFC 6266: `filename*`, in its encoding,
/// before `filename`), without any folder, bounded; none when it gives none.
fn file_name(disposition: &str) -> Option<String> {
    let mut plain = None;
    let mut extended = None;
    for (name, value) in parameters(disposition) {
        match name.as_str() {
            "filename*" => extended = extended.or_else(|| decode_extended(&value)),
            "filename" => plain = plain.or(Some(value)),
            _ => {}
        }
    }
    let name = extended.or(plain)?;
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = base.chars().filter(|c| !c.is_control()).collect();
    let clean = clean.trim();
    (!clean.is_empty()).then(|| truncate_words(clean, MAX_FILE_NAME_CHARS))
}

/// The `name=value` parameters after the disposition type, names in lower case, quoted values
/// unquoted.
fn parameters(header: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in header.chars() {
        match c {
            _ if escaped => {
                current.push(c);
                escaped = false;
            }
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .skip(1)
        .filter_map(|part| {
            let (name, value) = part.split_once('=')?;
            Some((name.trim().to_ascii_lowercase(), value.trim().to_string()))
        })
        .collect()
}

/// An RFC 8187 value, `charset'language'percent-encoded`, decoded (UTF-8 or ISO-8859-1).
fn decode_extended(value: &str) -> Option<String> {
    let mut pieces = value.splitn(3, '\'');
    let (charset, _language, encoded) = (pieces.next()?, pieces.next()?, pieces.next()?);
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(encoded).collect();
    if charset.eq_ignore_ascii_case("utf-8") {
        Some(String::from_utf8_lossy(&bytes).into_owned())
    } else if charset.eq_ignore_ascii_case("iso-8859-1") {
        Some(bytes.iter().map(|&b| char::from(b)).collect())
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
