//! The core's HTTP client over the worker's `fetch`: a bounded wait per request, timers for
//! retries, and the request aborted if the task is stopped while it is in flight.

use agent_core::llm::{HttpClient, HttpResponse};
use futures::future::{select, Either};
use gloo_net::http::Request;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortController;

/// A model that has not answered by then is treated as unreachable (and tried again).
const REQUEST_TIMEOUT_MS: u32 = 120_000;

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

/// Resolves after `milliseconds`, with the worker's `setTimeout`.
pub async fn sleep(milliseconds: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let set_timeout = js_sys::Reflect::get(&js_sys::global(), &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(set_timeout) = set_timeout {
            let _ = set_timeout.call2(&JsValue::NULL, &resolve, &JsValue::from(milliseconds));
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

impl FetchClient {
    /// One request; `body` makes it a POST, none a GET.
    async fn fetch(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Option<String>,
    ) -> Result<HttpResponse, String> {
        let controller = AbortController::new().map_err(|_| "the browser could not create a request".to_string())?;
        let mut guard = AbortOnDrop(Some(controller.clone()));
        let builder = if body.is_some() { Request::post(url) } else { Request::get(url) };
        let mut builder = builder.abort_signal(Some(&controller.signal()));
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let request = match body {
            Some(body) => builder.body(body).map_err(|err| err.to_string())?,
            None => builder.build().map_err(|err| err.to_string())?,
        };
        let response = request.send().await.map_err(|err| err.to_string())?;
        let status = response.status();
        let retry_after = response.headers().get("retry-after");
        let body = response.text().await.map_err(|err| err.to_string())?;
        guard.0 = None;
        Ok(HttpResponse { status, body, retry_after })
    }

    /// A request bounded in time; dropping it (stop, or the time limit) aborts it.
    async fn bounded(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Option<String>,
    ) -> Result<HttpResponse, String> {
        let request = std::pin::pin!(self.fetch(url, headers, body));
        let timeout = std::pin::pin!(sleep(REQUEST_TIMEOUT_MS));
        match select(request, timeout).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(_) => Err(format!("no answer within {} s", REQUEST_TIMEOUT_MS / 1000)),
        }
    }
}

impl HttpClient for FetchClient {
    async fn post_json(&self, url: &str, headers: &[(String, String)], body: String) -> Result<HttpResponse, String> {
        self.bounded(url, headers, Some(body)).await
    }

    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<HttpResponse, String> {
        self.bounded(url, headers, None).await
    }

    async fn sleep(&self, milliseconds: u32) {
        sleep(milliseconds).await;
    }

    fn jitter(&self) -> f64 {
        js_sys::Math::random()
    }
}
