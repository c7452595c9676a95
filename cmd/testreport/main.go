// Command testreport reads `go test -json` and turns it into what a person reads: `testreport run` prints each
// package's result as `go test` would (with the output of failed tests and build errors, and the subtests of the
// packages named by -list) and keeps the raw events in a file; `testreport times` prints from such files each
// package's time, slowest first, and the slowest tests. `make test` runs the first, `make test-times` the second.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time        time.Time
	Action      string
	Package     string
	ImportPath  string // build events
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "times":
		err = timesCmd(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go test -json ... | testreport run [-o file] [-list regexp]\n       testreport times [-tests n] file...")
	os.Exit(2)
}

var errFailed = errors.New("tests failed")

func runCmd(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	out := fs.String("o", "", "write the raw events to this file")
	list := fs.String("list", "", "print the subtest results of packages whose import path matches")
	_ = fs.Parse(args) // ExitOnError: a bad flag has already ended the program
	var listRE *regexp.Regexp
	if *list != "" {
		var err error
		if listRE, err = regexp.Compile(*list); err != nil {
			return fmt.Errorf("-list: %w", err)
		}
	}
	var raw io.Writer // io.Discard unless -o names a file
	raw = io.Discard
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		bw := bufio.NewWriter(f)
		defer bw.Flush()
		raw = bw
	}
	failed, err := report(os.Stdin, os.Stdout, raw, listRE)
	if err != nil {
		return err
	}
	if failed {
		return errFailed
	}
	return nil
}

// report prints the results of the events read from r to w, copies every line to raw, and says whether
// anything failed.
func report(r io.Reader, w io.Writer, raw io.Writer, list *regexp.Regexp) (failed bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	// Output is held per test (and per package, Test "") until the result is known: only failures print it.
	held := map[[2]string][]string{}
	const maxHeld = 2000 // lines kept per test: a runaway test must not hold the machine's memory
	for sc.Scan() {
		line := sc.Bytes()
		fmt.Fprintf(raw, "%s\n", line)
		var e event
		if json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not an event: go test's own words (a build error before any package ran)
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			failed = true
		case "output":
			if len(held[key]) < maxHeld {
				held[key] = append(held[key], e.Output)
			}
		case "pass", "skip", "fail":
			lines := held[key]
			delete(held, key)
			if e.Action == "fail" {
				failed = true
				for _, l := range lines {
					fmt.Fprint(w, l)
				}
				if e.Test == "" && len(lines) == 0 {
					fmt.Fprintf(w, "FAIL\t%s\n", e.Package)
				}
				continue
			}
			switch {
			case e.Test == "":
				for _, l := range lines { // the package's closing lines: "ok pkg 1.2s" or "? pkg [no test files]"
					if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?") || strings.HasPrefix(l, "ok\t") {
						fmt.Fprint(w, l)
					}
				}
			case list != nil && list.MatchString(e.Package) && strings.Contains(e.Test, "/"):
				fmt.Fprintf(w, "    --- %s: %s (%.2fs)\n", strings.ToUpper(e.Action), e.Test, e.Elapsed)
			}
		}
	}
	return failed, sc.Err()
}

func timesCmd(args []string) error {
	fs := flag.NewFlagSet("times", flag.ExitOnError)
	n := fs.Int("tests", 15, "how many of the slowest tests to list")
	_ = fs.Parse(args) // ExitOnError: a bad flag has already ended the program
	if fs.NArg() == 0 {
		usage()
	}
	var readers []io.Reader
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("%w (make test writes it)", err)
		}
		defer f.Close()
		readers = append(readers, f)
	}
	return times(io.MultiReader(readers...), os.Stdout, *n)
}

type timing struct {
	name    string
	elapsed float64
	result  string
}

// times prints the packages by elapsed time, slowest first, then the n slowest top-level tests.
func times(r io.Reader, w io.Writer, n int) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var pkgs, tests []timing
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || (e.Action != "pass" && e.Action != "fail" && e.Action != "skip") {
			continue
		}
		switch {
		case e.Test == "":
			pkgs = append(pkgs, timing{e.Package, e.Elapsed, e.Action})
		case !strings.Contains(e.Test, "/"):
			tests = append(tests, timing{e.Package + " " + e.Test, e.Elapsed, e.Action})
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	bySlowest := func(a, b timing) int { return cmp.Or(cmp.Compare(b.elapsed, a.elapsed), cmp.Compare(a.name, b.name)) }
	slices.SortFunc(pkgs, bySlowest)
	slices.SortFunc(tests, bySlowest)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "seconds\tresult\tpackage\t")
	var sum float64
	for _, p := range pkgs {
		if p.elapsed == 0 && p.result == "skip" {
			continue // no test files
		}
		sum += p.elapsed
		fmt.Fprintf(tw, "%.1f\t%s\t%s\t\n", p.elapsed, p.result, p.name)
	}
	fmt.Fprintf(tw, "%.1f\t\tsum (packages run side by side: more than the wall time)\t\n", sum)
	tw.Flush()
	fmt.Fprintf(w, "\nslowest tests\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, t := range tests[:min(n, len(tests))] {
		fmt.Fprintf(tw, "%.1f\t%s\t%s\t\n", t.elapsed, t.result, t.name)
	}
	return tw.Flush()
}
