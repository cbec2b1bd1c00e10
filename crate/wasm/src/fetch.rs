//! The core's HTTP client over the worker's `fetch`: a bounded wait per request, timers for
//! retries, and the request aborted if the task is stopped while it is in flight.

use agent_core::llm::{HttpClient, HttpResponse};
use futures::future::{select, Either};
use gloo_net::http::Request;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortController;

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// The worker's session runner for Chrome's built-in model (background/built-in-model.js);
    /// `signal` ends the session's prompt when the task stops.
    #[wasm_bindgen(js_namespace = builtInModel, js_name = prompt, catch)]
    async fn prompt_built_in_model(request: String, signal: web_sys::AbortSignal) -> Result<JsValue, JsValue>;
}

/// `fetch` with a time limit: a model that has not answered by then is treated as unreachable
/// (and tried again).
#[derive(Clone)]
pub struct FetchClient {
    pub timeout_ms: u32,
}

/// Aborts the fetch, or the built-in model's prompt, if the request future is dropped before it
/// finishes (the user pressed stop).
struct AbortOnDrop(Option<AbortController>);

impl AbortOnDrop {
    /// The response has been read whole: nothing is left to abort.
    fn finished(mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort();
        }
    }
}

/// Sends a request (`body` makes it a POST, none a GET) whose response arrives with the guard
/// that aborts it if the caller is dropped before reading it whole.
async fn send(
    url: &str,
    headers: &[(String, String)],
    body: Option<String>,
) -> Result<(gloo_net::http::Response, AbortOnDrop), String> {
    let controller = AbortController::new().map_err(|_| "the browser could not create a request".to_string())?;
    let guard = AbortOnDrop(Some(controller.clone()));
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
    Ok((response, guard))
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
    /// A POST whose response body is handed to `on_chunk` as it arrives (decoded as UTF-8 across
    /// chunk boundaries) and also returned whole.
    async fn fetch_streaming(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: String,
        on_chunk: &dyn Fn(&str),
    ) -> Result<HttpResponse, String> {
        let (response, guard) = send(url, headers, Some(body)).await?;
        let status = response.status();
        let retry_after = response.headers().get("retry-after");
        let Some(stream) = response.body() else {
            guard.finished();
            return Ok(HttpResponse { status, body: String::new(), retry_after });
        };
        let reader: web_sys::ReadableStreamDefaultReader =
            stream.get_reader().dyn_into().map_err(|_| "the response cannot be read as a stream".to_string())?;
        let decoder = web_sys::TextDecoder::new().map_err(|_| "no text decoder".to_string())?;
        let options = web_sys::TextDecodeOptions::new();
        options.set_stream(true);
        let mut whole = String::new();
        loop {
            let result = wasm_bindgen_futures::JsFuture::from(reader.read()).await.map_err(|err| format!("{err:?}"))?;
            let done = js_sys::Reflect::get(&result, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true);
            if done {
                break;
            }
            let value = js_sys::Reflect::get(&result, &"value".into()).map_err(|_| "no chunk".to_string())?;
            let bytes: js_sys::Uint8Array = value.dyn_into().map_err(|_| "a chunk is not bytes".to_string())?;
            let text = decoder
                .decode_with_js_u8_array_and_options(&bytes, &options)
                .map_err(|_| "a chunk is not UTF-8".to_string())?;
            whole.push_str(&text);
            on_chunk(&text);
        }
        guard.finished();
        Ok(HttpResponse { status, body: whole, retry_after })
    }

    /// One request; `body` makes it a POST, none a GET.
    async fn fetch(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Option<String>,
    ) -> Result<HttpResponse, String> {
        let (response, guard) = send(url, headers, body).await?;
        let status = response.status();
        let retry_after = response.headers().get("retry-after");
        let body = response.text().await.map_err(|err| err.to_string())?;
        guard.finished();
        Ok(HttpResponse { status, body, retry_after })
    }

    /// The request, unless the time limit comes first; dropping it (stop, or the limit) aborts it.
    async fn within_time_limit<T>(
        &self,
        request: impl std::future::Future<Output = Result<T, String>>,
    ) -> Result<T, String> {
        let request = std::pin::pin!(request);
        let timeout = std::pin::pin!(sleep(self.timeout_ms));
        match select(request, timeout).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(_) => Err(format!("no answer within {} s", self.timeout_ms / 1000)),
        }
    }
}

impl HttpClient for FetchClient {
    async fn post_json(&self, url: &str, headers: &[(String, String)], body: String) -> Result<HttpResponse, String> {
        self.within_time_limit(self.fetch(url, headers, Some(body))).await
    }

    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<HttpResponse, String> {
        self.within_time_limit(self.fetch(url, headers, None)).await
    }

    async fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: String,
        on_chunk: &dyn Fn(&str),
    ) -> Result<HttpResponse, String> {
        self.within_time_limit(self.fetch_streaming(url, headers, body, on_chunk)).await
    }

    async fn sleep(&self, milliseconds: u32) {
        sleep(milliseconds).await;
    }

    fn jitter(&self) -> f64 {
        js_sys::Math::random()
    }

    async fn prompt_built_in(&self, request: String) -> Result<String, String> {
        let controller = AbortController::new().map_err(|_| "the browser could not create a request".to_string())?;
        let signal = controller.signal();
        // Stopping the task drops this future, which stops the model's work on the prompt too.
        let guard = AbortOnDrop(Some(controller));
        let answer = async move {
            let answer = prompt_built_in_model(request, signal).await.map_err(|err| format!("{err:?}"))?;
            guard.finished();
            answer.as_string().ok_or_else(|| "the built-in model's runner answered no text".to_string())
        };
        self.within_time_limit(answer).await
    }
}
