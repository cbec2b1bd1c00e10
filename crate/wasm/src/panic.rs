//! What a panic does to the worker's core. The release build aborts on a panic (`panic =
//! "abort"`): the wasm instance traps, and it cannot be used again, since a trap unwinds nothing
//! (its stack pointer, borrowed cells and half-done tasks stay as they were). So the hook does two
//! things before the trap: it has wasm-bindgen make a fresh instance of the same module at the
//! next call into it (`schedule_reinit`), and it tells the worker (the host's `corePanicked`),
//! which ends the tasks that were under way, saying so, and makes a fresh `Core`
//! (extension/background/core-restart.js says how, and why that way).

use crate::host::BrowserHost;
use crate::Core;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The host of this instance's `Core`, told of a panic.
    static HOST: RefCell<Option<BrowserHost>> = const { RefCell::new(None) };
}

/// Makes a panic a report to `host` and a fresh instance at the next call. From the `Core`
/// constructor: one `Core` an instance, and a fresh instance installs it again with its own.
pub fn install(host: &BrowserHost) {
    HOST.with(|slot| *slot.borrow_mut() = Some(same(host)));
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let what = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic");
        report(&match info.location() {
            Some(place) => format!("{what}, at {}:{}", place.file(), place.line()),
            None => what.to_string(),
        })
    }));
}

fn report(panic: &str) {
    wasm_bindgen::handler::schedule_reinit();
    let host = HOST.with(|slot| slot.try_borrow().ok().and_then(|host| host.as_ref().map(same)));
    if let Some(host) = host {
        // The instance traps right after, whatever the worker does with the news.
        host.core_panicked(panic);
    }
}

/// Another handle on the same JavaScript object.
fn same(host: &BrowserHost) -> BrowserHost {
    JsValue::clone(host).unchecked_into()
}

#[wasm_bindgen]
impl Core {
    /// Does nothing itself: called right after a panic, it makes wasm-bindgen's glue replace the
    /// dead instance at once (every call into the module checks for that first), before any
    /// object or callback of the dead instance can be used (extension/background/core-restart.js).
    #[wasm_bindgen(js_name = replacePanickedInstance)]
    pub fn replace_panicked_instance() {}

    /// Panics, on purpose, in a task of the worker's queue, as the core's own code would: exists
    /// only for the end-to-end test of the panic hook (tests/e2e/core-panic.test.mjs). Nothing
    /// in the extension calls it.
    #[wasm_bindgen(js_name = panicForTest)]
    pub fn panic_for_test(&self) {
        wasm_bindgen_futures::spawn_local(async { panic!("a deliberate panic, for the test of the panic hook") });
    }
}
