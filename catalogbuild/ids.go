package catalogbuild

import "regexp"

// idPattern is what a provider or model ID may look like: the names providers' APIs take (gpt-4o-2024-08-06,
// accounts/fireworks/models/llama-v3p1-8b-instruct, anthropic.claude-3-5-sonnet-20240620-v1:0, @cf/meta/llama-3,
// ~moonshotai/kimi-latest). No whitespace, markup, quotes, control characters or terminal escapes: an ID reaches
// JSON answers, MCP results, pages and signed webhooks, so a source cannot smuggle anything through one.
// A trailing "/" is a path prefix, not a model: litellm's fireworks_ai/accounts/fireworks/models/ is its default
// rate for any Fireworks model, and was served as a model with an empty name.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9@~](?:[A-Za-z0-9._:/@~+-]{0,198}[A-Za-z0-9._:@~+-])?$`)

// ValidID reports whether s may be a provider or model ID of a catalog.
func ValidID(s string) bool { return idPattern.MatchString(s) }

// IDFields are the record fields that hold provider or model IDs; the build and the refresh's install check read
// every one that a record has.
var IDFields = []string{"provider_id", "model", "model_id", "alias", "replacement_model", "resolved_model", "from_provider", "to_provider"}
