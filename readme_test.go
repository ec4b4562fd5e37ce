//go:build linux

package uring_test

import (
	"embed"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestREADMESnippets keeps the README's code from drifting: the ```go
// block of each quick-start section must be, byte for byte, the body of
// a function in an example file (one tab less indented), which an Example
// runs and checks.
func TestREADMESnippets(t *testing.T) {
	for _, c := range []struct{ heading, file, fn string }{
		{"## Quick start: files from goroutines", "task/fileio/example_test.go", "readAtRandom"},
		{"## Quick start: net/http on the runtime", "task/goio/example_test.go", "serveHTTP"},
		{"## Quick start: an echo server on tasks", "task/example_linux_test.go", "serveEcho"},
		{"## Quick start: the raw ring", "example_test.go", "writeReadBack"},
	} {
		requireSnippet(t, c.heading+"\n", c.file, c.fn)
	}
}

// The files the snippets live in, built into the test binary: the
// kernel matrix runs it in a copy of this directory only.
//
//go:embed README.md example_test.go task/fileio/example_test.go task/goio/example_test.go task/example_linux_test.go
var snippetFiles embed.FS

func requireSnippet(t *testing.T, heading, file, fn string) {
	t.Helper()
	readme, err := snippetFiles.ReadFile("README.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(readme), "\n"+heading)
	require.True(t, ok, "README.md has no section %q", strings.TrimSpace(heading))
	if end := strings.Index(sec, "\n## "); end >= 0 {
		sec = sec[:end]
	}
	_, block, ok := strings.Cut("\n"+sec, "\n```go\n")
	require.True(t, ok, "no ```go block in the README's section %q", strings.TrimSpace(heading))
	block, _, ok = strings.Cut(block, "\n```\n")
	require.True(t, ok, "the ```go block of %q is not closed", strings.TrimSpace(heading))

	src, err := snippetFiles.ReadFile(file)
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	require.NoError(t, err)
	var body *ast.BlockStmt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == fn {
			body = fd.Body
		}
	}
	require.NotNil(t, body, "%s has no func %s", file, fn)
	inner := string(src[fset.Position(body.Lbrace).Offset+1 : fset.Position(body.Rbrace).Offset])
	inner = strings.TrimPrefix(strings.TrimSuffix(inner, "\n"), "\n")
	lines := strings.Split(inner, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	require.Equal(t, strings.Join(lines, "\n"), block,
		"README.md's section %q differs from %s's body in %s: copy the body over", strings.TrimSpace(heading), fn, file)
}
