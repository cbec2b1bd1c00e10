//! Prints every reply schema the core can send to a model, as one JSON array of
//! `{label, name, schema, strict}`: what the end-to-end suite compiles with llama.cpp's
//! JSON-schema-to-grammar, the converter Ollama and llama.cpp's server use.

fn main() {
    let schemas = agent_core::agent::request_schemas();
    println!("{}", serde_json::to_string_pretty(&schemas).expect("schemas are JSON"));
}
