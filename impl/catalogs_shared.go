package impl

import "github.com/switchboard/switchboard/catalog"

// Helpers the catalog groups share.

// isTrue and isFalse read a nullable boolean of the catalogs: an unknown (nil) fact is neither, so the `*_only`
// filters and the meta counts keep only confirmed facts.
func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }

// trueFlag is the filter of a boolean parameter over a nullable record field: `true` keeps the records where the
// field is confirmed true, `false` (or absent) is no filter.
func trueFlag[T any](param *bool, field func(*T) *bool) catalog.Filter[T] {
	return catalog.Flag(orDefault(param, false), func(r *T) bool { return isTrue(field(r)) })
}

// countTrue counts the records where field is confirmed true.
func countTrue[T any](recs []T, field func(*T) *bool) int {
	return catalog.Count(recs, func(r *T) bool { return isTrue(field(r)) })
}
