// Package gateway turns a failover ranking into the configuration of an LLM gateway: a LiteLLM Router config, a
// Portkey fallback config or an OpenRouter request body with its fallback models. Gateway model names come only
// from data (names.json, generated from the upstream snapshots; the provider's own model ID where the gateway
// takes it as is): a target whose name is unknown is skipped with the reason, never guessed.
package gateway

//go:generate go run ../catalogbuild/gatewaynames -src ../sources/upstream -out names.json
