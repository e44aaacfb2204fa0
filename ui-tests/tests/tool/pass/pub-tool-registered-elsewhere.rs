//! A `pub` tool whose args struct or parameter types are private to its
//! module registers from any module that can name the tool, nested ones
//! included.

#![allow(private_interfaces)]

mod outer {
    pub mod tools {
        use dsh_kit::prelude::*;

        #[derive(ToolArgs)]
        struct GreetArgs {
            name: String,
        }

        /// Greet someone.
        #[tool(validate = check_greet)]
        pub async fn greet(args: GreetArgs) -> String {
            format!("Hello, {}!", args.name)
        }

        fn check_greet(args: &GreetArgs, _: &Exec) -> Validation {
            if args.name.is_empty() {
                return Validation::invalid("the name is empty", 1);
            }
            Validation::Ok
        }

        #[derive(Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "snake_case")]
        enum Unit {
            Metre,
            Foot,
        }

        /// Convert a length to metres.
        #[tool]
        pub(crate) async fn convert(amount: f64, unit: Unit) -> f64 {
            match unit {
                Unit::Metre => amount,
                Unit::Foot => amount * 0.3048,
            }
        }

        /// Wave, destructuring a private args struct.
        #[tool]
        pub async fn wave(GreetArgs { name }: GreetArgs) -> String {
            format!("*waves at {name}*")
        }
    }
}

mod elsewhere {
    pub fn register(registry: &dsh_kit::Registry) -> dsh_kit::ToolHandle {
        registry
            .register::<crate::outer::tools::convert>()
            .unwrap()
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    use dsh_kit::prelude::json;

    let registry = dsh_kit::Registry::new();
    let _greet = registry.register::<outer::tools::greet>().unwrap();
    let _wave = registry.register::<outer::tools::wave>().unwrap();
    let _convert = elsewhere::register(&registry);
    let greeted = registry.call("greet", json!({ "name": "Ada" })).await;
    assert_eq!(greeted.text(), "Hello, Ada!");
    assert!(registry.call("greet", json!({ "name": "" })).await.is_error());
    let waved = registry.call("wave", json!({ "name": "Ada" })).await;
    assert_eq!(waved.text(), "*waves at Ada*");
    let converted = registry
        .call("convert", json!({ "amount": 10.0, "unit": "foot" }))
        .await;
    assert_eq!(converted.text(), "3.048");
    let info = registry.get("greet").unwrap();
    assert_eq!(info.input_schema()["required"], json!(["name"]));
}
