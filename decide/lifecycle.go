package decide

import (
	"time"
)

// ShutdownNoticeDays is how close a shutdown may come before a model stops being a candidate: a decision never
// picks, recommends or offers as a backup a model its provider shuts down within this many days, since a caller
// who follows the answer would have to move again within the month. A caller still using such a model is told
// the day and the replacement.
const ShutdownNoticeDays = 30

// ShutdownIn says whether a model whose provider shuts it down on shutdown (YYYY-MM-DD, "" when no day is set) is
// still served on today (YYYY-MM-DD), and how many whole days remain until that day (nil without one; 0 on the
// day itself, when the model is already gone, as the deprecation catalog judges it). A day that does not parse is
// taken as no day.
func ShutdownIn(shutdown, today string) (live bool, daysLeft *int) {
	if shutdown == "" {
		return true, nil
	}
	s, err1 := time.Parse(time.DateOnly, shutdown)
	d, err2 := time.Parse(time.DateOnly, today)
	if err1 != nil || err2 != nil {
		return true, nil
	}
	n := int(s.Sub(d).Hours() / 24)
	return n > 0, &n
}

// Eligible reports whether such a model may be a decision's candidate on today: served, and not shut down within
// ShutdownNoticeDays.
func Eligible(shutdown, today string) bool {
	live, left := ShutdownIn(shutdown, today)
	return live && (left == nil || *left > ShutdownNoticeDays)
}

// retirement is a model's announced shutdown day and the replacement its provider names ("" when none).
type retirement struct{ day, replacement string }

// lifecycleOf gathers the shutdown days and replacements of the catalogs. It is the one place decisions read
// lifecycle from.
func lifecycleOf(c Catalogs) map[string]retirement {
	out := make(map[string]retirement, len(c.Shutdowns))
	for k, d := range c.Shutdowns {
		out[k] = retirement{day: d, replacement: c.Replacements[k]}
	}
	return out
}

// endingSoon is the model's shutdown day when the model is still served on the index's day but shuts down within
// ShutdownNoticeDays of it; "" otherwise (and always for an index without a day).
func (ix *Index) endingSoon(provider, model string) string {
	r, ok := ix.lifecycle[provider+"/"+model]
	if !ok || ix.today == "" {
		return ""
	}
	live, left := ShutdownIn(r.day, ix.today)
	if live && left != nil && *left <= ShutdownNoticeDays {
		return r.day
	}
	return ""
}

// Retirement is the announced shutdown of provider's model: its day and replacement, ok false when none is
// announced.
func (ix *Index) Retirement(provider, model string) (day, replacement string, ok bool) {
	r, ok := ix.lifecycle[provider+"/"+model]
	return r.day, r.replacement, ok
}
