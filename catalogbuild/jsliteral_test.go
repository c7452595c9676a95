package catalogbuild

import (
	"strings"
	"testing"
)

// TestReadBundledLiteral: the literal forms a bundler writes read as JSON.stringify would write them (numbers in
// JavaScript's notation, strings unescaped but for quotes, backslashes and control characters, integer-like keys
// first), and every form of code is refused.
func TestReadBundledLiteral(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		`const E = [1, -2.5, .5, 1e6, 128e3, 1e21, 1e-7, 0.000001, 0x1F, 0.18000000000000002, -0]`:          `[1,-2.5,0.5,1000000,128000,1e+21,1e-7,0.000001,31,0.18000000000000002,0]`,
		`const E = [!0, !1, true, false, null]`:                                                             `[true,false,true,false,null]`,
		"const E = ['a\\'b', \"c\\\"d\", `e\nf`, `g\\u{1F600}`, '\\x41\\u00e9<&>', 'tab\\there', 'a\\\nb']": `["a'b","c\"d","e\nf","g😀","Aé<&>","tab\there","ab"]`,
		`const E = {b: 1, "a": 2, 10: 3, 2: 4, 'x-y': 5, b: 6}`:                                             `{"2":4,"10":3,"b":6,"a":2,"x-y":5}`,
		"const E = [/* comment */ {id: 'a', models: [],}, // trailing\n]\nexport {E}":                       `[{"id":"a","models":[]}]`,
		"const E = ['\\uD83D\\uDE00']; f()":                                                                 `["😀"]`,
		`var data = {default: 1, new: 2}`:                                                                   `{"default":1,"new":2}`,
	} {
		v, err := readBundledLiteral([]byte(src))
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := stringifyJS(v)
		if err != nil {
			t.Fatal(err)
		}
		compact := strings.NewReplacer("\n", "", "  ", "", `": `, `":`).Replace(got)
		if compact != want {
			t.Errorf("%s\n got %s\nwant %s", src, compact, want)
		}
	}
	for _, src := range []string{
		`E = [1]`, `const E = f()`, `const E = [a]`, `const E = [undefined]`, `const E = [NaN]`, `const E = [Infinity]`,
		`const E = [1e999]`, `const E = [010]`, `const E = [1_000]`, `const E = [1n]`, `const E = ['\101']`,
		"const E = [`${x}`]", `const E = [...a]`, `const E = {...a}`, `const E = {[k]: 1}`, `const E = {a}`,
		`const E = {a() {}}`, `const E = {get a() { return 1 }}`, `const E = [function () {}]`, `const E = [() => 1]`,
		`const E = [new Date()]`, `const E = [/re/]`, `const E = [1,,2]`, `const E = [!2]`, `const E = [-'1']`,
		`const E = {__proto__: {}}`, `const E = ["\uD800"]`, `const E = ['a' + 'b']`, `const E = [1].map(f)`, "const E = [1]\n.map(f)", "const E = [1]\nin x", "const E = [1]\n(f)",
		`const E = [1]`[:10], `const E = "unterminated`, `const E = ['line` + "\n" + `break']`,
		`const E = ` + strings.Repeat("[", maxLiteralDepth+1) + strings.Repeat("]", maxLiteralDepth+1),
	} {
		if v, err := readBundledLiteral([]byte(src)); err == nil {
			t.Errorf("%s: accepted as %v", src, v)
		}
	}
}
