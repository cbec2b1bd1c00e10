//! The core's HTTP client over the worker's `fetch`, aborting the request when the task is stopped.

use agent_core::llm::{HttpClient, HttpResponse};
use gloo_net::http::Request;
use web_sys::AbortController;

pub struct FetchClient;

/// Aborts the fetch if the request future is dropped before it finishes (the user pressed stop).
struct AbortOnDrop(Option<AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort();
        }
    }
}

impl HttpClient for FetchClient {
    async fn post_json(&self, url: &str, headers: &[(String, String)], body: String) -> Result<HttpResponse, String> {
        let controller = AbortController::new().map_err(|_| "the browser could not create a request".to_string())?;
        let mut guard = AbortOnDrop(Some(controller.clone()));
        let mut builder = Request::post(url).abort_signal(Some(&controller.signal()));
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let request = builder.body(body).map_err(|err| err.to_string())?;
        let response = request.send().await.map_err(|err| err.to_string())?;
        let status = response.status();
        let body = response.text().await.map_err(|err| err.to_string())?;
        guard.0 = None;
        Ok(HttpResponse { status, body })
    }
}
