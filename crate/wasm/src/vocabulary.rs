//! The BPE vocabularies, fetched from the extension's own files (`extension/vocab/*.tiktoken`, put there by
//! `build.sh`) and parsed once per worker: they are not compiled into the wasm.

use agent_core::llm::Provider;
use agent_core::tokens::{encoding_for, Bpe, Encoding, TokenCounter};
use futures::future::{FutureExt, LocalBoxFuture, Shared};
use gloo_net::http::Request;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

/// A vocabulary being loaded or loaded, shared by every caller that asks meanwhile.
type Loading = Shared<LocalBoxFuture<'static, Result<Rc<Bpe>, String>>>;

thread_local! {
    static VOCABULARIES: RefCell<HashMap<Encoding, Loading>> = RefCell::new(HashMap::new());
}

/// The token counter for a provider and model. OpenAI-family models count exactly with their own
/// vocabulary; the others are estimated from the o200k count scaled for their tokenizer. If a
/// vocabulary cannot be loaded the counter falls back to the vocabulary-free estimate for that
/// provider: this never fails.
///
/// As `async fn token_counter(provider: Provider, model: &str) -> TokenCounter`, except that the
/// future does not borrow `model` (so a closure can return it).
pub fn token_counter(provider: Provider, model: &str) -> impl Future<Output = TokenCounter> + 'static {
    let model = model.to_string();
    async move {
        let encoding = encoding_for(provider, &model).unwrap_or(Encoding::O200k);
        match vocabulary(encoding).await {
            Ok(bpe) => TokenCounter::new(provider, &model, Some(bpe)),
            Err(error) => {
                web_sys::console::warn_1(&format!("token counts for {model} are estimated: {error}").into());
                TokenCounter::new(provider, &model, None)
            }
        }
    }
}

/// The vocabulary for `encoding`, loaded on first use; a failed load is tried again next time.
async fn vocabulary(encoding: Encoding) -> Result<Rc<Bpe>, String> {
    let loading = VOCABULARIES.with(|loaded| {
        loaded.borrow_mut().entry(encoding).or_insert_with(|| load(encoding).boxed_local().shared()).clone()
    });
    let result = loading.await;
    if result.is_err() {
        VOCABULARIES.with(|loaded| loaded.borrow_mut().remove(&encoding));
    }
    result
}

async fn load(encoding: Encoding) -> Result<Rc<Bpe>, String> {
    let url = extension_url(&format!("extension/vocab/{}", encoding.file_name()))?;
    let response = Request::get(&url).send().await.map_err(|err| format!("{url} could not be read: {err}"))?;
    if !response.ok() {
        return Err(format!("{url} could not be read (HTTP {}); run ./build.sh", response.status()));
    }
    let text = response.text().await.map_err(|err| format!("{url} could not be read: {err}"))?;
    Bpe::from_tiktoken(&text, encoding).map(Rc::new)
}

/// `chrome.runtime.getURL(path)`: the address of one of the extension's files.
fn extension_url(path: &str) -> Result<String, String> {
    let no_runtime = |_| "not running in the extension (no chrome.runtime)".to_string();
    let runtime = js_sys::Reflect::get(&js_sys::global(), &"chrome".into())
        .and_then(|chrome| js_sys::Reflect::get(&chrome, &"runtime".into()))
        .map_err(no_runtime)?;
    let get_url: js_sys::Function = js_sys::Reflect::get(&runtime, &"getURL".into())
        .map_err(no_runtime)?
        .dyn_into()
        .map_err(|_| "chrome.runtime.getURL is missing".to_string())?;
    get_url
        .call1(&runtime, &JsValue::from_str(path))
        .ok()
        .and_then(|url| url.as_string())
        .ok_or_else(|| "chrome.runtime.getURL failed".to_string())
}
