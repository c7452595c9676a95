package store

// PaymentStore remembers x402 payment nonces. Its methods are added with the x402 issue, implemented in
// store/sqlite_payments.go and store/postgres_payments.go.
type PaymentStore interface{}
