package store

// WebhookStore holds webhook subscriptions and their deliveries. Its methods are added with the webhooks issue,
// implemented in store/sqlite_webhooks.go and store/postgres_webhooks.go.
type WebhookStore interface{}
