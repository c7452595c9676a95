package catalogbuild

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The npm release of genai-prices bundles its data as the first statement of dist/index.js: `const E = [ ... ]`,
// a JavaScript literal, not JSON (unquoted keys, single-quoted and template strings, `!0` for true). The build
// reads that literal as data with the small reader below and never runs the file: a release is a download from
// the internet, and evaluating it would run whatever its publisher (or whoever took over the package) wrote.
//
// The reader accepts only literals: objects with plain keys, arrays, strings (quoted or template literals without
// substitutions), numbers (with an optional minus), true, false, null, and the minifiers' spellings !0 and !1 of
// true and false. Anything else (an identifier, a call, `new`, a spread, a computed or shorthand key, a method, a
// getter, a template with ${...}, a regular expression, a function) is refused with its offset, so a release that
// turns its data into code fails the fetch instead of being run.

// jsObject is an object literal: its own keys in the order JSON.stringify writes them, and their values.
type jsObject struct {
	keys []string
	vals map[string]any
}

// maxLiteralDepth bounds the nesting of the literal (the real one nests 8 deep).
const maxLiteralDepth = 64

// jsLiteralReader reads one literal from src; pos is the next byte to read.
type jsLiteralReader struct {
	src   string
	pos   int
	depth int
}

// readBundledLiteral reads the value of the first statement of a bundle, `const|let|var NAME = <literal>`, and
// returns it as data (jsObject, []any, string, float64, bool or nil). What follows the literal is code the build
// never reads.
func readBundledLiteral(src []byte) (any, error) {
	if !utf8.Valid(src) {
		return nil, errors.New("the bundle is not UTF-8")
	}
	r := &jsLiteralReader{src: string(src)}
	r.skipSpace()
	word := r.identifier()
	if word != "const" && word != "let" && word != "var" {
		return nil, r.errorf("the bundle does not start with a declaration (found %q)", word)
	}
	r.skipSpace()
	if name := r.identifier(); name == "" {
		return nil, r.errorf("the declaration has no name")
	}
	r.skipSpace()
	if !r.eat('=') {
		return nil, r.errorf("the declaration has no value")
	}
	v, err := r.value()
	if err != nil {
		return nil, err
	}
	// The literal must end the declaration: `const E = [...] + f()` or `[...].map(f)` would make the value an
	// expression (run or not, the data would not be the literal). It ends at , or ; or the end of the file, or
	// at a line break followed by a new statement (a word: export, function, const...).
	end := r.pos
	r.skipSpace()
	switch {
	case r.pos == len(r.src) || r.src[r.pos] == ',' || r.src[r.pos] == ';':
	case strings.ContainsAny(r.src[end:r.pos], "\n\r") && r.continuesIdentifier() && !r.operatorWord():
	default:
		return nil, r.errorf("the literal is followed by %q, not the end of the declaration", r.src[r.pos])
	}
	return v, nil
}

func (r *jsLiteralReader) errorf(format string, a ...any) error {
	return fmt.Errorf("bundled data, offset %d: %s", r.pos, fmt.Sprintf(format, a...))
}

func (r *jsLiteralReader) eat(c byte) bool {
	if r.pos < len(r.src) && r.src[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

// skipSpace skips white space, line terminators and comments.
func (r *jsLiteralReader) skipSpace() {
	for r.pos < len(r.src) {
		switch c := r.src[r.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			r.pos++
		case strings.HasPrefix(r.src[r.pos:], "//"):
			if i := strings.IndexByte(r.src[r.pos:], '\n'); i >= 0 {
				r.pos += i + 1
			} else {
				r.pos = len(r.src)
			}
		case strings.HasPrefix(r.src[r.pos:], "/*"):
			i := strings.Index(r.src[r.pos+2:], "*/")
			if i < 0 {
				return // an unterminated comment: the next read fails on it
			}
			r.pos += i + 4
		case c >= utf8.RuneSelf:
			ru, n := utf8.DecodeRuneInString(r.src[r.pos:])
			if ru != '\uFEFF' && !unicode.Is(unicode.Zs, ru) && ru != '\u2028' && ru != '\u2029' {
				return
			}
			r.pos += n
		default:
			return
		}
	}
}

// identifier reads an identifier name (ASCII or Unicode letters, digits, _ and $), or "" when there is none.
func (r *jsLiteralReader) identifier() string {
	start := r.pos
	for r.pos < len(r.src) {
		ru, n := utf8.DecodeRuneInString(r.src[r.pos:])
		if ru == '_' || ru == '$' || unicode.IsLetter(ru) || (r.pos > start && unicode.IsDigit(ru)) {
			r.pos += n
			continue
		}
		break
	}
	return r.src[start:r.pos]
}

func (r *jsLiteralReader) value() (any, error) {
	r.skipSpace()
	if r.pos >= len(r.src) {
		return nil, r.errorf("the literal ends early")
	}
	switch c := r.src[r.pos]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"' || c == '\'':
		return r.quoted()
	case c == '`':
		return r.template()
	case c == '-':
		r.pos++
		r.skipSpace()
		f, err := r.number()
		return -f, err
	case c == '!':
		// Minifiers write true as !0 and false as !1; nothing else after ! is data.
		r.pos++
		r.skipSpace()
		switch {
		case strings.HasPrefix(r.src[r.pos:], "0") && !r.continuesNumber(r.pos+1):
			r.pos++
			return true, nil
		case strings.HasPrefix(r.src[r.pos:], "1") && !r.continuesNumber(r.pos+1):
			r.pos++
			return false, nil
		}
		return nil, r.errorf("! is data only as !0 or !1")
	case c == '.' || (c >= '0' && c <= '9'):
		return r.number()
	}
	start := r.pos
	switch word := r.identifier(); word {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	case "":
		return nil, r.errorf("%q is not a literal", r.src[start])
	default:
		r.pos = start
		return nil, r.errorf("%q is not a literal (identifiers, calls and functions are code)", word)
	}
}

func (r *jsLiteralReader) continuesNumber(i int) bool {
	if i >= len(r.src) {
		return false
	}
	c := r.src[i]
	return c == '.' || c == '_' || c == 'e' || c == 'E' || c == 'n' || (c >= '0' && c <= '9') || c == 'x' || c == 'X'
}

func (r *jsLiteralReader) enter() error {
	if r.depth++; r.depth > maxLiteralDepth {
		return r.errorf("nested deeper than %d", maxLiteralDepth)
	}
	return nil
}

func (r *jsLiteralReader) array() (any, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer func() { r.depth-- }()
	r.pos++ // [
	out := []any{}
	for {
		r.skipSpace()
		if r.eat(']') {
			return out, nil
		}
		if strings.HasPrefix(r.src[r.pos:], "...") {
			return nil, r.errorf("a spread is code")
		}
		if r.pos < len(r.src) && r.src[r.pos] == ',' {
			return nil, r.errorf("an array with a hole")
		}
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		r.skipSpace()
		if r.eat(']') {
			return out, nil
		}
		if !r.eat(',') {
			return nil, r.errorf("expected , or ] in an array")
		}
	}
}

func (r *jsLiteralReader) object() (any, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	defer func() { r.depth-- }()
	r.pos++ // {
	out := &jsObject{vals: map[string]any{}}
	for {
		r.skipSpace()
		if r.eat('}') {
			return out, nil
		}
		key, err := r.key()
		if err != nil {
			return nil, err
		}
		r.skipSpace()
		if !r.eat(':') {
			// a shorthand property, a method or an accessor: all of them code
			return nil, r.errorf("key %q is not followed by : (shorthand properties, methods and accessors are code)", key)
		}
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		if _, dup := out.vals[key]; !dup {
			out.keys = append(out.keys, key)
		}
		out.vals[key] = v // a repeated key keeps its first place and its last value, as in JavaScript
		r.skipSpace()
		if r.eat('}') {
			return out, nil
		}
		if !r.eat(',') {
			return nil, r.errorf("expected , or } in an object")
		}
	}
}

func (r *jsLiteralReader) key() (string, error) {
	if r.pos >= len(r.src) {
		return "", r.errorf("the literal ends early")
	}
	if strings.HasPrefix(r.src[r.pos:], "...") {
		return "", r.errorf("a spread is code")
	}
	var key string
	switch c := r.src[r.pos]; {
	case c == '"' || c == '\'':
		s, err := r.quoted()
		if err != nil {
			return "", err
		}
		key = s.(string)
	case c == '.' || (c >= '0' && c <= '9'):
		f, err := r.number()
		if err != nil {
			return "", err
		}
		key = jsNumberString(f)
	case c == '[':
		return "", r.errorf("a computed key is code")
	default:
		if key = r.identifier(); key == "" {
			return "", r.errorf("%q cannot start a key", c)
		}
	}
	// `__proto__: x` in a literal sets the object's prototype instead of making a key.
	if key == "__proto__" {
		return "", r.errorf("__proto__ is not data")
	}
	return key, nil
}

// number reads a numeric literal: decimal with an optional fraction and exponent, or 0x / 0o / 0b. Legacy octal
// (a leading 0), separators and BigInts are refused; so is a value beyond the doubles (it would be Infinity).
func (r *jsLiteralReader) number() (float64, error) {
	start := r.pos
	if strings.HasPrefix(r.src[r.pos:], "0x") || strings.HasPrefix(r.src[r.pos:], "0X") ||
		strings.HasPrefix(r.src[r.pos:], "0o") || strings.HasPrefix(r.src[r.pos:], "0O") ||
		strings.HasPrefix(r.src[r.pos:], "0b") || strings.HasPrefix(r.src[r.pos:], "0B") {
		base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[r.src[r.pos+1]|0x20]
		r.pos += 2
		digits := r.pos
		for r.pos < len(r.src) && isDigitIn(r.src[r.pos], base) {
			r.pos++
		}
		if r.pos == digits || r.continuesIdentifier() {
			return 0, r.errorf("a malformed number")
		}
		u, err := strconv.ParseUint(r.src[digits:r.pos], base, 64)
		if err != nil || u > 1<<53 {
			return 0, r.errorf("number %s is not exact as a double", r.src[start:r.pos])
		}
		return float64(u), nil
	}
	digits := func() int {
		n := 0
		for r.pos < len(r.src) && r.src[r.pos] >= '0' && r.src[r.pos] <= '9' {
			r.pos++
			n++
		}
		return n
	}
	intDigits := digits()
	if intDigits > 1 && r.src[start] == '0' {
		return 0, r.errorf("legacy octal number %s", r.src[start:r.pos])
	}
	fracDigits := 0
	if r.eat('.') {
		fracDigits = digits()
	}
	if intDigits+fracDigits == 0 {
		return 0, r.errorf("a malformed number")
	}
	if r.pos < len(r.src) && (r.src[r.pos] == 'e' || r.src[r.pos] == 'E') {
		r.pos++
		if !r.eat('+') {
			r.eat('-')
		}
		if digits() == 0 {
			return 0, r.errorf("a malformed exponent")
		}
	}
	if r.continuesIdentifier() || (r.pos < len(r.src) && r.src[r.pos] == '_') {
		return 0, r.errorf("a malformed number %s", r.src[start:min(r.pos+1, len(r.src))])
	}
	f, err := strconv.ParseFloat(r.src[start:r.pos], 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, r.errorf("number %s: %v", r.src[start:r.pos], err)
	}
	return f, nil
}

// operatorWord reports whether the next word is an operator that would continue an expression on a new line.
func (r *jsLiteralReader) operatorWord() bool {
	start := r.pos
	w := r.identifier()
	r.pos = start
	return w == "in" || w == "instanceof"
}

func (r *jsLiteralReader) continuesIdentifier() bool {
	if r.pos >= len(r.src) {
		return false
	}
	ru, _ := utf8.DecodeRuneInString(r.src[r.pos:])
	return ru == '_' || ru == '$' || unicode.IsLetter(ru) || unicode.IsDigit(ru)
}

func isDigitIn(c byte, base int) bool {
	var v int
	switch {
	case c >= '0' && c <= '9':
		v = int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		v = int(c|0x20-'a') + 10
	default:
		return false
	}
	return v < base
}

// quoted reads a '...' or "..." string.
func (r *jsLiteralReader) quoted() (any, error) {
	q := r.src[r.pos]
	r.pos++
	var b strings.Builder
	for {
		if r.pos >= len(r.src) {
			return nil, r.errorf("an unterminated string")
		}
		c := r.src[r.pos]
		switch {
		case c == q:
			r.pos++
			return b.String(), nil
		case c == '\\':
			if err := r.escape(&b); err != nil {
				return nil, err
			}
		case c == '\n' || c == '\r':
			return nil, r.errorf("a line break in a string")
		default:
			ru, n := utf8.DecodeRuneInString(r.src[r.pos:])
			b.WriteRune(ru)
			r.pos += n
		}
	}
}

// template reads a template literal without substitutions: its cooked value, line breaks as \n.
func (r *jsLiteralReader) template() (any, error) {
	r.pos++ // `
	var b strings.Builder
	for {
		if r.pos >= len(r.src) {
			return nil, r.errorf("an unterminated template")
		}
		c := r.src[r.pos]
		switch {
		case c == '`':
			r.pos++
			return b.String(), nil
		case c == '$' && strings.HasPrefix(r.src[r.pos:], "${"):
			return nil, r.errorf("a template with a substitution is code")
		case c == '\\':
			if err := r.escape(&b); err != nil {
				return nil, err
			}
		case c == '\r': // CR and CRLF read as LF in a template
			r.pos++
			r.eat('\n')
			b.WriteByte('\n')
		default:
			ru, n := utf8.DecodeRuneInString(r.src[r.pos:])
			b.WriteRune(ru)
			r.pos += n
		}
	}
}

// escape reads one escape sequence (r.pos is on the backslash) and writes what it stands for.
func (r *jsLiteralReader) escape(b *strings.Builder) error {
	r.pos++
	if r.pos >= len(r.src) {
		return r.errorf("an unterminated escape")
	}
	c := r.src[r.pos]
	r.pos++
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '0':
		if r.pos < len(r.src) && r.src[r.pos] >= '0' && r.src[r.pos] <= '9' {
			return r.errorf("an octal escape")
		}
		b.WriteByte(0)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return r.errorf("an octal escape")
	case '\n': // a line continuation
	case '\r':
		r.eat('\n')
	case 'x':
		if r.pos+2 > len(r.src) {
			return r.errorf("a malformed \\x escape")
		}
		v, err := strconv.ParseUint(r.src[r.pos:r.pos+2], 16, 8)
		if err != nil {
			return r.errorf("a malformed \\x escape")
		}
		r.pos += 2
		b.WriteRune(rune(v))
	case 'u':
		u, err := r.codeUnit()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(u) {
			// only a high surrogate followed by an escaped low one makes a character
			if u >= 0xDC00 || !strings.HasPrefix(r.src[r.pos:], `\u`) {
				return r.errorf("a lone surrogate")
			}
			r.pos += 2
			lo, err := r.codeUnit()
			if err != nil {
				return err
			}
			if u = utf16.DecodeRune(u, lo); u == utf8.RuneError {
				return r.errorf("a lone surrogate")
			}
		}
		b.WriteRune(u)
	default:
		r.pos--
		ru, n := utf8.DecodeRuneInString(r.src[r.pos:])
		r.pos += n
		if ru == '\u2028' || ru == '\u2029' {
			return nil // a line continuation
		}
		b.WriteRune(ru) // \' \" \\ \` and any other character stand for themselves
	}
	return nil
}

// codeUnit reads the digits of a \u escape: four hex digits or {hex}.
func (r *jsLiteralReader) codeUnit() (rune, error) {
	if r.eat('{') {
		end := strings.IndexByte(r.src[r.pos:], '}')
		if end <= 0 || end > 6 {
			return 0, r.errorf("a malformed \\u{} escape")
		}
		v, err := strconv.ParseUint(r.src[r.pos:r.pos+end], 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, r.errorf("a malformed \\u{} escape")
		}
		r.pos += end + 1
		return rune(v), nil
	}
	if r.pos+4 > len(r.src) {
		return 0, r.errorf("a malformed \\u escape")
	}
	v, err := strconv.ParseUint(r.src[r.pos:r.pos+4], 16, 16)
	if err != nil {
		return 0, r.errorf("a malformed \\u escape")
	}
	r.pos += 4
	return rune(v), nil
}
