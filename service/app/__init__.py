"""The application layer: the use cases every edge shares (REST, GraphQL, the CLI, the
workers). Edges translate requests into calls here and answers back; they never reach past
it to the store or the engine's internals."""
