/// What a call returns, read inside an expectation: `#expect` cannot call a mutating method
/// itself, and a part's `handle(_:)` is one.
func take<Value>(_ call: () -> Value) -> Value { call() }
