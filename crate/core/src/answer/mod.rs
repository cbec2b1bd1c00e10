//! Structured answers: a task may carry an output schema (a JSON Schema, the user's), and its
//! final answer then comes as JSON in that shape, checked here. The models are held to a form of
//! the schema their providers can enforce (`held`); the check is always against the user's own.

mod check;
mod held;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The shape a task's answer must have: a JSON Schema the core can check an answer against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Value", into = "Value")]
pub struct OutputSchema {
    schema: Value,
}

impl OutputSchema {
    /// Takes the user's schema, refusing one the core could not check an answer against; the
    /// error says what to change.
    pub fn new(schema: Value) -> Result<OutputSchema, String> {
        // It goes with every navigator request, twice (in the task and in the reply's schema).
        const MAX_CHARS: usize = 20_000;
        let length = schema.to_string().chars().count();
        if length > MAX_CHARS {
            let (length, most) = (crate::text::thousands(length), crate::text::thousands(MAX_CHARS));
            return Err(format!("the output schema is {length} characters long, at most {most}: make it smaller"));
        }
        check::readable(&schema, &schema, "")?;
        Ok(OutputSchema { schema })
    }

    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Where and how `data` departs from the schema, one line per breach (`at /rows/0/price: ...`);
    /// empty when it fits.
    pub fn breaches(&self, data: &Value) -> Vec<String> {
        let mut found = Vec::new();
        check::check(&self.schema, &self.schema, data, "", 0, &mut found);
        found
    }

    /// The schema as models are held to it: `Some` for a form every provider's strict mode
    /// accepts (all fields required, the optional ones nullable; constraints left to the check);
    /// `None` when the schema cannot be put so, and the request only outlines it.
    pub fn held(&self) -> Option<Value> {
        held::held(&self.schema)
    }

    /// `data` as the user's schema has it: a model held to the held form writes null for an
    /// optional field it leaves out, and such a field is dropped (where the schema does not
    /// take null).
    pub fn settled(&self, data: Value) -> Value {
        held::settled(&self.schema, data)
    }

    /// What the navigator is told about the answer, after the task.
    pub fn instruction(&self) -> String {
        format!(
            "Give the final answer as JSON in done's \"data\" field, following this JSON schema (\"text\" then sums it up in words): {}",
            self.schema
        )
    }
}

impl TryFrom<Value> for OutputSchema {
    type Error = String;
    fn try_from(schema: Value) -> Result<Self, String> {
        OutputSchema::new(schema)
    }
}

impl From<OutputSchema> for Value {
    fn from(schema: OutputSchema) -> Value {
        schema.schema
    }
}

/// The answer's problem in a reply to the model: what is wrong, breach by breach, at most a few.
pub fn breaches_said(breaches: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut said = breaches.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("; ");
    if breaches.len() > SHOWN {
        said.push_str(&format!("; and {} more", breaches.len() - SHOWN));
    }
    said
}
