//! A `pub` tool whose args, parameter or output type is private to its
//! module, which Rust accepts for a fn with a lint: the tool compiles too,
//! and registers wherever its types can be named.

#![allow(private_interfaces)]

mod tools {
    use dsh_kit::prelude::*;

    #[derive(ToolArgs)]
    struct GreetArgs {
        name: String,
    }

    /// Greet someone.
    #[tool]
    pub async fn greet(args: GreetArgs) -> String {
        format!("Hello, {}!", args.name)
    }

    #[derive(ToolOutput)]
    struct Reading {
        value: f64,
    }

    /// Read the gauge.
    #[tool(read_only)]
    pub(crate) async fn read_gauge(gauge: String) -> Result<Reading, String> {
        let _ = gauge;
        Ok(Reading { value: 1.0 })
    }

    #[derive(Serialize, Deserialize, JsonSchema)]
    enum Unit {
        Metre,
        Foot,
    }

    /// Convert a length.
    #[tool]
    pub async fn convert(amount: f64, unit: Unit) -> f64 {
        match unit {
            Unit::Metre => amount,
            Unit::Foot => amount * 0.3048,
        }
    }

    pub fn registry() -> dsh_kit::Registry {
        let registry = dsh_kit::Registry::new();
        registry.register::<greet>().unwrap();
        registry.register::<read_gauge>().unwrap();
        registry.register::<convert>().unwrap();
        registry
    }
}

/// A pub tool of public types registers anywhere.
mod open {
    use dsh_kit::prelude::*;

    /// Echo a text.
    #[tool]
    pub async fn echo(text: String) -> String {
        text
    }
}

fn main() {
    let registry = tools::registry();
    registry.register::<open::echo>().unwrap();
    assert!(<open::echo as dsh_kit::Tool>::DEFINITION.name() == "echo");
}
