//! Sending a request again when the failure is passing: rate limits, overloaded or failing
//! servers, and network errors, with exponential backoff and jitter, honouring `Retry-After`.

use super::{HttpClient, HttpResponse};

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Tries in all for a response with a passing error status.
    pub attempts: u32,
    /// Tries in all when no response arrives at all (a refused connection is usually lasting).
    pub network_attempts: u32,
    pub base_delay_ms: u32,
    pub max_delay_ms: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { attempts: 4, network_attempts: 2, base_delay_ms: 1000, max_delay_ms: 30_000 }
    }
}

/// Statuses worth another try: timeouts, rate limits, server errors, overload.
pub fn is_passing(status: u16, body: &str) -> bool {
    match status {
        429 => !is_quota_exhausted(body),
        408 | 500 | 502 | 503 | 504 | 529 => true,
        _ => false,
    }
}

/// A 429 that will not pass by waiting: the account's quota or credit is used up.
pub fn is_quota_exhausted(body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    body.contains("insufficient_quota")
        || body.contains("exceeded your current quota")
        || body.contains("credit balance")
}

/// How long to wait before try `attempt` + 1 (0-based): the server's `Retry-After` in seconds when
/// it gives one, else exponential backoff with jitter (`jitter` in 0..1), capped.
pub fn delay_ms(policy: &RetryPolicy, attempt: u32, jitter: f64, retry_after: Option<&str>) -> u32 {
    if let Some(seconds) = retry_after.and_then(|value| value.trim().parse::<f64>().ok()).filter(|s| *s >= 0.0) {
        return ((seconds * 1000.0) as u32).min(policy.max_delay_ms.max(60_000));
    }
    let exponential = policy.base_delay_ms.saturating_mul(1 << attempt.min(16)).min(policy.max_delay_ms);
    (f64::from(exponential) * (0.5 + jitter.clamp(0.0, 1.0) / 2.0)) as u32
}

/// POSTs, trying again after passing failures. `Err` carries why no response came, after the
/// last try; an error status that does not pass is returned as a response.
pub async fn post_with_retries<H: HttpClient>(
    http: &H,
    policy: &RetryPolicy,
    url: &str,
    headers: &[(String, String)],
    body: &str,
) -> Result<HttpResponse, String> {
    let mut attempt = 0;
    loop {
        let outcome = http.post_json(url, headers, body.to_string()).await;
        let (limit, retry_after) = match &outcome {
            Ok(response) if is_passing(response.status, &response.body) => {
                (policy.attempts, response.retry_after.clone())
            }
            Ok(_) => return outcome,
            Err(_) => (policy.network_attempts, None),
        };
        if attempt + 1 >= limit {
            return outcome;
        }
        http.sleep(delay_ms(policy, attempt, http.jitter(), retry_after.as_deref())).await;
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backs_off_exponentially_with_jitter_and_a_cap() {
        let policy = RetryPolicy::default();
        assert_eq!(delay_ms(&policy, 0, 1.0, None), 1000);
        assert_eq!(delay_ms(&policy, 0, 0.0, None), 500);
        assert_eq!(delay_ms(&policy, 2, 1.0, None), 4000);
        assert_eq!(delay_ms(&policy, 10, 1.0, None), 30_000);
    }

    #[test]
    fn honours_retry_after_in_seconds() {
        let policy = RetryPolicy::default();
        assert_eq!(delay_ms(&policy, 0, 0.3, Some("7")), 7000);
        assert_eq!(
            delay_ms(&policy, 0, 1.0, Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            1000,
            "dates fall back to backoff"
        );
    }

    #[test]
    fn tells_passing_failures_from_lasting_ones() {
        assert!(is_passing(429, r#"{"error":{"message":"Rate limit reached"}}"#));
        assert!(!is_passing(429, r#"{"error":{"code":"insufficient_quota"}}"#));
        assert!(is_passing(503, ""));
        assert!(is_passing(529, "overloaded"));
        assert!(!is_passing(400, ""));
        assert!(!is_passing(401, ""));
    }
}
