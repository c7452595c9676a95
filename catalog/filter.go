package catalog

import (
	"cmp"
	"strings"
	"time"
)

// Filter accepts or rejects one record. The constructors below return nil for "no filter" (an absent parameter,
// a boolean filter set to false, a minimum of 0), which Select skips; so a request without filters costs nothing.
type Filter[T any] func(*T) bool

// Number is what numeric filters and orders take.
type Number interface {
	~int | ~int32 | ~int64 | ~float64
}

// Flag keeps the records keep accepts when on; off is no filter. This is the catalogs' boolean filter, where
// `false` means no filter (DESIGN.md), and also any rule a parameter switches on (such as "token-priced only").
func Flag[T any](on bool, keep func(*T) bool) Filter[T] {
	if !on {
		return nil
	}
	return keep
}

// Is keeps the records whose field equals *want; nil is no filter. For the few booleans where `false` asks
// for the records without the property (has_free_tier).
func Is[T any](want *bool, field func(*T) bool) Filter[T] {
	if want == nil {
		return nil
	}
	w := *want
	return func(r *T) bool { return field(r) == w }
}

// IsKnown is Is for a field that can be unknown (nil): a record whose field is nil is kept by neither true nor
// false, since its value was not confirmed either way.
func IsKnown[T any](want *bool, field func(*T) *bool) Filter[T] {
	if want == nil {
		return nil
	}
	w := *want
	return func(r *T) bool {
		v := field(r)
		return v != nil && *v == w
	}
}

// Equal keeps the records whose field equals *want (an enum filter); nil is no filter.
func Equal[T any, V comparable](want *V, field func(*T) V) Filter[T] {
	if want == nil {
		return nil
	}
	w := *want
	return func(r *T) bool { return field(r) == w }
}

// Contains keeps the records whose field contains needle, ignoring case (a partial match such as `model` or
// `tier`); an empty needle is no filter. A needle matching nothing gives an empty answer, not an error.
func Contains[T any](needle string, field func(*T) string) Filter[T] {
	if needle == "" {
		return nil
	}
	n := strings.ToLower(needle)
	return func(r *T) bool { return strings.Contains(strings.ToLower(field(r)), n) }
}

// AtLeast keeps the records whose field is known and at least min; a minimum of 0 or less is no filter, so
// records with an unknown (nil) value are dropped only when a minimum is asked for.
func AtLeast[T any, N Number](min N, field func(*T) *N) Filter[T] {
	if min <= 0 {
		return nil
	}
	return func(r *T) bool {
		v := field(r)
		return v != nil && *v >= min
	}
}

// Between keeps the records whose date is known and within [from, to], both inclusive; a zero bound is open
// and two zero bounds are no filter. field reports false for an unknown date.
func Between[T any](from, to time.Time, field func(*T) (time.Time, bool)) Filter[T] {
	if from.IsZero() && to.IsZero() {
		return nil
	}
	return func(r *T) bool {
		d, ok := field(r)
		return ok && (from.IsZero() || !d.Before(from)) && (to.IsZero() || !d.After(to))
	}
}

// ByKeys orders records by string keys, ascending, the first key first: the tie-break every catalog ends its
// orders with (provider ID, then model ID).
func ByKeys[T any](keys ...func(*T) string) Compare[T] {
	return func(a, b *T) int {
		for _, k := range keys {
			if c := strings.Compare(k(a), k(b)); c != 0 {
				return c
			}
		}
		return 0
	}
}

// Ascending orders records by a numeric field, smallest first, records with an unknown (nil) value last.
func Ascending[T any, N Number](field func(*T) *N) Compare[T] {
	return func(a, b *T) int { return KnownFirst(field(a), field(b), false) }
}

// Descending orders records by a numeric field, largest first, records with an unknown (nil) value last.
func Descending[T any, N Number](field func(*T) *N) Compare[T] {
	return func(a, b *T) int { return KnownFirst(field(a), field(b), true) }
}

// KnownFirst compares two optional values, ascending or (desc) descending, with an unknown (nil) value last
// either way: the tie-break of the orders above, and of handlers that order by an optional string.
func KnownFirst[V cmp.Ordered](a, b *V, desc bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	case desc:
		return cmp.Compare(*b, *a)
	}
	return cmp.Compare(*a, *b)
}

// Then chains orders: the first that tells two records apart decides.
func Then[T any](orders ...Compare[T]) Compare[T] {
	return func(a, b *T) int {
		for _, o := range orders {
			if c := o(a, b); c != 0 {
				return c
			}
		}
		return 0
	}
}

// EqualKnown is Equal for a field that can be unknown (nil): it keeps the records whose field is known and
// equals *want; nil want is no filter.
func EqualKnown[T any, V comparable](want *V, field func(*T) *V) Filter[T] {
	if want == nil {
		return nil
	}
	w := *want
	return func(r *T) bool {
		v := field(r)
		return v != nil && *v == w
	}
}

// AnyContains is Contains for a list field: it keeps the records with at least one entry that contains needle,
// ignoring case (such as `model` against a tool's compatible models); an empty needle is no filter, and a record
// with an empty list never matches one.
func AnyContains[T any](needle string, field func(*T) []string) Filter[T] {
	if needle == "" {
		return nil
	}
	n := strings.ToLower(needle)
	return func(r *T) bool {
		for _, s := range field(r) {
			if strings.Contains(strings.ToLower(s), n) {
				return true
			}
		}
		return false
	}
}
