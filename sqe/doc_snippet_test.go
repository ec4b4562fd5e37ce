package sqe_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestDocSnippet keeps the package overview's snippet from rotting: the
// code block under "# Use" in doc.go must be, line for line, the body of
// queueWrite in example_linux_test.go (one tab less indented), which
// Example compiles, runs and checks.
func TestDocSnippet(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, use, ok := strings.Cut(string(doc), "\n// # Use\n")
	if !ok {
		t.Fatal("doc.go has no # Use section")
	}
	var snippet []string
	for _, l := range strings.Split(use, "\n") {
		if code, ok := strings.CutPrefix(l, "//\t"); ok {
			snippet = append(snippet, code)
		} else if len(snippet) > 0 {
			break
		}
	}
	if len(snippet) == 0 {
		t.Fatal("doc.go's # Use section has no code block")
	}

	const name = "example_linux_test.go"
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var body *ast.BlockStmt
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "queueWrite" {
			body = fn.Body
		}
	}
	if body == nil {
		t.Fatalf("%s has no func queueWrite", name)
	}
	inner := string(src[fset.Position(body.Lbrace).Offset+1 : fset.Position(body.Rbrace).Offset])
	lines := strings.Split(strings.Trim(inner, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	if got, want := strings.Join(snippet, "\n"), strings.Join(lines, "\n"); got != want {
		t.Errorf("doc.go's snippet differs from queueWrite's body in %s: copy the body over\ndoc.go:\n%s\n%s:\n%s",
			name, got, name, want)
	}
}
