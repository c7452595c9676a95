package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the helpers every format shares: decoding a body to UTF-8 whatever its byte-order mark,
// sniffing what kind of document it is, decoding JSON into a required shape, and turning HTML fragments into
// short plain text.

// maxSummary is the longest Summary a Reading carries, in characters (runes).
const maxSummary = 200

// unparseable wraps ErrUnparseable with what was wrong.
func unparseable(format, why string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", format, fmt.Sprintf(why, args...), ErrUnparseable)
}

// utf8Body returns body as UTF-8 text: a UTF-8 byte-order mark is dropped, UTF-16 (with a BOM, or without one
// when the first character is ASCII and so betrays the byte order by a zero byte) is decoded, and surrounding
// white space is trimmed. Invalid UTF-16 decodes to U+FFFD rather than failing: the JSON or XML decoder then
// judges the text.
func utf8Body(body []byte) []byte {
	switch {
	case bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}):
		body = body[3:]
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}):
		body = decodeUTF16(body[2:], false)
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}):
		body = decodeUTF16(body[2:], true)
	case len(body) >= 4 && body[0] == 0 && body[1] != 0 && body[2] == 0 && body[3] != 0:
		body = decodeUTF16(body, true)
	case len(body) >= 4 && body[0] != 0 && body[1] == 0 && body[2] != 0 && body[3] == 0:
		body = decodeUTF16(body, false)
	}
	return bytes.TrimSpace(body)
}

func decodeUTF16(b []byte, bigEndian bool) []byte {
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if bigEndian {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			units = append(units, uint16(b[i+1])<<8|uint16(b[i]))
		}
	}
	runes := utf16.Decode(units)
	out := make([]byte, 0, len(runes))
	for _, r := range runes {
		out = utf8.AppendRune(out, r)
	}
	return out
}

// sniffKind names what a (UTF-8, trimmed) body looks like, for error messages and for the formats that accept
// more than one shape.
func sniffKind(b []byte) string {
	if len(b) == 0 {
		return "empty body"
	}
	switch b[0] {
	case '{':
		return "json object"
	case '[':
		return "json array"
	case '<':
		if looksLikeHTML(b) {
			return "html"
		}
		return "xml"
	}
	if bytes.Equal(b, []byte("null")) {
		return "json null"
	}
	return "text"
}

// looksLikeHTML reports whether a markup body is an HTML page (a doctype or an <html> root near the start).
func looksLikeHTML(b []byte) bool {
	head := b
	if len(head) > 512 {
		head = head[:512]
	}
	h := strings.ToLower(string(head))
	return strings.Contains(h, "<!doctype html") || strings.Contains(h, "<html") || strings.Contains(h, "<head") ||
		strings.Contains(h, "<body")
}

// decodeJSON decodes a body that must be JSON of the given kind ('{' for an object, '[' for an array) into v.
// Anything else (HTML, XML, an empty or truncated body, values of the wrong JSON type) is unparseable. For an
// array, a bare `null` is accepted and leaves v untouched.
func decodeJSON(format string, body []byte, want byte, v any) error {
	b := utf8Body(body)
	if want == '[' && bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) == 0 || b[0] != want {
		exp := "a json object"
		if want == '[' {
			exp = "a json array"
		}
		return unparseable(format, "expected %s, got %s", exp, sniffKind(b))
	}
	if err := json.Unmarshal(b, v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return unparseable(format, "invalid json at byte %d", syn.Offset)
		case errors.As(err, &typ):
			return unparseable(format, "json field %q has the wrong type (%s)", typ.Field, typ.Value)
		}
		return unparseable(format, "invalid json: %v", err)
	}
	return nil
}

// text is a JSON value read as a string whatever its scalar type: status fields are modelled as strings so that a
// value the parser does not know never fails the decoding, and some pages send IDs and codes as numbers. null
// reads as "". Objects and arrays are a wrong shape and fail.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return errors.New("empty value")
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
	case 'n':
		*t = ""
	case '{', '[':
		return errors.New("expected a string or number, got an object or array")
	default: // number or boolean
		*t = text(b)
	}
	return nil
}

// norm is the value in lower case without surrounding space.
func (t text) norm() string { return strings.ToLower(strings.TrimSpace(string(t))) }

// htmlToLines turns an HTML fragment (or plain text) into plain text: tags are dropped, block-level tags and <br>
// become line breaks, entities are decoded, and white space inside each line is collapsed. Empty lines are
// dropped. Contents of <script> and <style> are dropped.
func htmlToLines(s string) []string {
	s = cdataMarkers.Replace(s)
	lower := asciiLower(s) // same byte offsets as s, for case-insensitive searches
	lastGT := strings.LastIndexByte(s, '>')
	var sb strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '<' {
			sb.WriteByte(c)
			i++
			continue
		}
		// A comment.
		if strings.HasPrefix(s[i:], "<!--") {
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		// isTagStart and lastGT first: scanning for '>' from every '<' of a long text would be quadratic.
		end := -1
		if i < lastGT && isTagStart(s[i+1:]) {
			end = strings.IndexByte(s[i:], '>')
		}
		if end < 0 {
			// A lone '<' in text ("latency < 2s").
			sb.WriteByte(c)
			i++
			continue
		}
		tag := s[i+1 : i+end]
		name := tagName(tag)
		i += end + 1
		if (name == "script" || name == "style") && !strings.HasPrefix(tag, "/") {
			close := strings.Index(lower[i:], "</"+name)
			if close < 0 {
				break
			}
			i += close
			continue
		}
		if blockTags[name] {
			sb.WriteByte('\n')
		} else {
			sb.WriteByte(' ')
		}
	}
	raw := html.UnescapeString(sb.String())
	var lines []string
	for _, l := range strings.Split(raw, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// asciiLower lower-cases ASCII letters only, so that byte offsets are kept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

var cdataMarkers = strings.NewReplacer("<![CDATA[", "", "]]>", "")

func isTagStart(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '/' || c == '!' || c == '?' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func tagName(tag string) string {
	tag = strings.TrimPrefix(tag, "/")
	end := strings.IndexFunc(tag, func(r rune) bool { return unicode.IsSpace(r) || r == '/' || r == '>' })
	if end >= 0 {
		tag = tag[:end]
	}
	return strings.ToLower(tag)
}

var blockTags = map[string]bool{
	"br": true, "p": true, "div": true, "li": true, "ul": true, "ol": true, "tr": true, "table": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "hr": true, "pre": true,
	"blockquote": true, "section": true, "article": true, "header": true, "footer": true,
}

// cleanText is an HTML fragment or plain text as one line: tags stripped, entities decoded, white space
// collapsed.
func cleanText(s string) string { return strings.Join(htmlToLines(s), " ") }

// summarize makes a Summary: clean text of at most maxSummary characters, cut at a word boundary when one is
// near, with an ellipsis when cut.
func summarize(s string) string {
	s = cleanText(strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	r := []rune(s)[:maxSummary-1]
	cut := string(r)
	if sp := strings.LastIndexByte(cut, ' '); sp > maxSummary*3/4 {
		cut = cut[:sp]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}

// fold is the form in which keywords and entry text are compared: lower case, with '-' and '_' read as spaces and
// white space collapsed, so that the keyword "machine-learning" also finds "Machine Learning".
func fold(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return ' '
		}
		return unicode.ToLower(r)
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
