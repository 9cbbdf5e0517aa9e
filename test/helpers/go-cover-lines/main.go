// Command go-cover-lines is the tests' independent reference for Go focal coverage: it reads a
// `go test -coverprofile` profile and the focal source with Go's own parser (go/ast), and prints the
// executable and covered lines of a line range as JSON. The engine does the same with tree-sitter
// (src/engine/languages/go/statement-lines.ts); the two share no code, so a test that compares them
// checks the definition, not one implementation against itself.
//
// Definition (METRICS.md, executable lines): a line is executable when a statement go test -cover
// counts starts on it (an element of a statement list, or the if of an else-if), labels peeled off,
// bare blocks and empty statements excepted; it is covered when a block with a non-zero count holds
// such a statement.
//
// Every statement start (line.column, go/token's byte columns) is printed too, whatever the range.
//
// Usage: go run main.go -profile cover.out -file focal.go -import example.com/m/focal.go -from 10 -to 40
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
)

type pos struct{ line, col int }

type block struct {
	from, to     pos
	stmts, count int
}

func less(a, b pos) bool { return a.line < b.line || (a.line == b.line && a.col < b.col) }

func statementStarts(fset *token.FileSet, file *ast.File) []pos {
	var out []pos
	add := func(s ast.Stmt) {
		for {
			l, ok := s.(*ast.LabeledStmt)
			if !ok {
				break
			}
			s = l.Stmt
		}
		switch s.(type) {
		// A switch or select body is a BlockStmt of clauses: the clauses are not statements.
		case nil, *ast.BlockStmt, *ast.EmptyStmt, *ast.CaseClause, *ast.CommClause:
			return
		}
		p := fset.Position(s.Pos())
		out = append(out, pos{p.Line, p.Column})
	}
	addAll := func(list []ast.Stmt) {
		for _, s := range list {
			add(s)
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			addAll(n.List)
		case *ast.CaseClause:
			addAll(n.Body)
		case *ast.CommClause:
			addAll(n.Body)
		case *ast.IfStmt:
			if e, ok := n.Else.(*ast.IfStmt); ok {
				add(e)
			}
		}
		return true
	})
	return out
}

var blockLine = regexp.MustCompile(`^(.+):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$`)

func blocks(profile, importPath string) ([]block, error) {
	f, err := os.Open(profile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []block
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := blockLine.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != importPath {
			continue
		}
		n := make([]int, 6)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+2])
		}
		out = append(out, block{pos{n[0], n[1]}, pos{n[2], n[3]}, n[4], n[5]})
	}
	return out, sc.Err()
}

func main() {
	profile := flag.String("profile", "", "cover profile")
	focal := flag.String("file", "", "focal source file")
	importPath := flag.String("import", "", "the file's import path in the profile")
	from := flag.Int("from", 1, "first line")
	to := flag.Int("to", 1<<30, "last line")
	flag.Parse()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, *focal, nil, parser.SkipObjectResolution)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bs, err := blocks(*profile, *importPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	starts := statementStarts(fset, file)
	sort.Slice(starts, func(i, j int) bool { return less(starts[i], starts[j]) })
	hits := map[int]int{}
	// Statements each block holds, against the count cover wrote: they differ only where cover counts
	// what we do not (a bare block, a lone semicolon, a split label).
	var disagreements []string
	for _, b := range bs {
		held := 0
		for _, s := range starts {
			if !less(s, b.from) && less(s, b.to) {
				held++
				if c, ok := hits[s.line]; !ok || b.count > c {
					hits[s.line] = b.count
				}
			}
		}
		if held != b.stmts {
			disagreements = append(disagreements, fmt.Sprintf("%d.%d,%d.%d holds %d statements, cover counted %d", b.from.line, b.from.col, b.to.line, b.to.col, held, b.stmts))
		}
	}
	result := struct {
		Executable    []int    `json:"executable"`
		Covered       []int    `json:"covered"`
		BlockLines    []int    `json:"blockLines"`
		Starts        []string `json:"starts"`
		Disagreements []string `json:"disagreements"`
	}{[]int{}, []int{}, []int{}, []string{}, disagreements}
	for _, s := range starts {
		result.Starts = append(result.Starts, fmt.Sprintf("%d.%d", s.line, s.col))
	}
	for line, c := range hits {
		if line < *from || line > *to {
			continue
		}
		result.Executable = append(result.Executable, line)
		if c > 0 {
			result.Covered = append(result.Covered, line)
		}
	}
	// The older rule, every line a block spans, for the before/after figures.
	spanned := map[int]bool{}
	for _, b := range bs {
		for l := b.from.line; l <= b.to.line; l++ {
			if l >= *from && l <= *to {
				spanned[l] = true
			}
		}
	}
	for l := range spanned {
		result.BlockLines = append(result.BlockLines, l)
	}
	sort.Ints(result.Executable)
	sort.Ints(result.Covered)
	sort.Ints(result.BlockLines)
	if result.Disagreements == nil {
		result.Disagreements = []string{}
	}
	json.NewEncoder(os.Stdout).Encode(result)
}
