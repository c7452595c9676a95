package parse

import (
	"regexp"
	"strings"
	"time"
)

// AWS Health Dashboard (statuspage-formats.md section 7), in either of its two public forms, told apart by the
// body: a per-service RSS feed (status.aws.amazon.com/rss/bedrock-us-east-1.rss, the URL in providers.json) or the
// currentevents JSON array (UTF-16 with a byte-order mark).
//
// RSS decisions:
//   - Items are grouped by guid with its trailing "_<epoch>" removed (AWS guids are "...#<service>-<region>_<time>"),
//     so each service-region is one incident line whose newest item decides; an item without a guid is grouped by
//     title. A newest item whose title says "[RESOLVED]" or "operating normally" closes it.
//   - Open entries: "Service disruption" or outage wording in the title -> outage; anything else ("Service
//     degradation", "Increased error rates", "Informational message", which AWS posts when customers see impact)
//     -> degraded. Only the title is read: AWS titles carry the category, descriptions are prose.
//   - Age: the feed closes incidents itself, so an unresolved item counts while its pubDate is within
//     closingFeedMaxAge (7 days); pubDate zones such as PDT are mapped to their real offsets.
//   - Keywords are matched against the item's title and description and also its guid, link and the channel title,
//     because per-service items do not name the service ("Amazon Bedrock (N. Virginia) Service Status").
//
// JSON decisions:
//   - Every event in the array is current. status "0" is none/resolved and skipped; "1" (informational) and "2"
//     (degraded) -> degraded; "3" (disruption) -> outage, as two of the three clients the doc cites read it. Without a
//     top-level status the newest event_log entry's status is used; an unknown value reads degraded (the event is
//     listed as current).
//   - Keywords match service ("bedrock-us-east-1"), service_name, arn and region_name. An event whose newest time
//     (date, event_log timestamps) is older than closingFeedMaxAge is ignored: without a region filter the JSON can
//     stay red for months.

func init() { register("aws-health", safe("aws-health", parseAWSHealth)) }

func parseAWSHealth(body []byte, scope Scope, now time.Time) (Reading, error) {
	now = clock(now)
	b := utf8Body(body)
	if len(b) > 0 && (b[0] == '[' || b[0] == '{' || b[0] == 'n') {
		return parseAWSEvents(b, scope, now)
	}
	f, err := decodeFeed("aws-health", b)
	if err != nil {
		return Reading{}, err
	}
	return f.evaluate(scope, now, feedPolicy{
		maxAge:      closingFeedMaxAge,
		undatedOpen: true,
		outage:      []string{"disruption", "outage"},
		outageIn:    outageInTitle,
		groupKey:    awsGroupKey,
		extra: func(it xmlItem, f *feed) []string {
			out := []string{it.GUID, f.title}
			for _, l := range it.Links {
				out = append(out, l.Href, l.Text)
			}
			return out
		},
	}), nil
}

var reAWSGuidTime = regexp.MustCompile(`_\d+$`)

func awsGroupKey(it xmlItem) string {
	if g := strings.TrimSpace(it.GUID); g != "" {
		return reAWSGuidTime.ReplaceAllString(g, "")
	}
	t := strings.ToLower(cleanText(it.Title.String()))
	return strings.TrimSpace(strings.TrimPrefix(t, "[resolved]"))
}

type awsEvent struct {
	Date        text `json:"date"`
	ARN         text `json:"arn"`
	RegionName  text `json:"region_name"`
	Status      text `json:"status"`
	Service     text `json:"service"`
	ServiceName text `json:"service_name"`
	Summary     text `json:"summary"`
	EventLog    []struct {
		Summary   text `json:"summary"`
		Message   text `json:"message"`
		Status    text `json:"status"`
		Timestamp text `json:"timestamp"`
	} `json:"event_log"`
}

func parseAWSEvents(b []byte, scope Scope, now time.Time) (Reading, error) {
	var events []awsEvent
	if err := decodeJSON("aws-health", b, '[', &events); err != nil {
		return Reading{}, err
	}
	ks := newKeywordScope(scope)
	v := newVerdict()
	for _, ev := range events {
		if !ks.matches(string(ev.Service), string(ev.ServiceName), string(ev.ARN), string(ev.RegionName)) {
			continue
		}
		last, _ := parseTime(string(ev.Date))
		status, summary := ev.Status.norm(), string(ev.Summary)
		newest, newestT := -1, time.Time{}
		for i, l := range ev.EventLog {
			t, ok := parseTime(string(l.Timestamp))
			if ok && t.After(last) {
				last = t
			}
			if newest < 0 || (ok && !t.Before(newestT)) {
				newest, newestT = i, t
			}
		}
		if newest >= 0 {
			l := ev.EventLog[newest]
			if status == "" {
				status = l.Status.norm()
			}
			if strings.TrimSpace(summary) == "" {
				summary = string(l.Summary)
			}
		}
		if !last.IsZero() && now.Sub(last) > closingFeedMaxAge {
			continue
		}
		var s Status
		switch status {
		case "0":
			continue
		case "3":
			s = Outage
		default: // "1", "2", or a value this code does not know
			s = Degraded
		}
		name := strings.TrimSpace(string(ev.ServiceName))
		if name == "" {
			name = string(ev.Service)
		}
		if name != "" && summary != "" {
			summary = name + ": " + summary
		} else if summary == "" {
			summary = name
		}
		v.add(s, false, prioIncident, summary)
	}
	return v.reading(), nil
}
