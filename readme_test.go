//go:build linux

package uring_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestREADMERawRing keeps the README's raw-ring snippet from drifting: its
// ```go block must be, byte for byte, the body of writeReadBack in
// example_test.go (one tab less indented), which Example runs and checks.
func TestREADMERawRing(t *testing.T) {
	const heading = "## The raw ring: write and read back a file\n"
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(readme), "\n"+heading)
	require.True(t, ok, "README.md has no section %q", strings.TrimSpace(heading))
	if end := strings.Index(sec, "\n## "); end >= 0 {
		sec = sec[:end]
	}
	_, block, ok := strings.Cut("\n"+sec, "\n```go\n")
	require.True(t, ok, "no ```go block in the README's raw-ring section")
	block, _, ok = strings.Cut(block, "\n```\n")
	require.True(t, ok, "the README's raw-ring ```go block is not closed")

	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "example_test.go", src, 0)
	require.NoError(t, err)
	var body *ast.BlockStmt
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "writeReadBack" {
			body = fn.Body
		}
	}
	require.NotNil(t, body, "example_test.go has no func writeReadBack")
	inner := string(src[fset.Position(body.Lbrace).Offset+1 : fset.Position(body.Rbrace).Offset])
	inner = strings.TrimPrefix(strings.TrimSuffix(inner, "\n"), "\n")
	lines := strings.Split(inner, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	require.Equal(t, strings.Join(lines, "\n"), block,
		"README.md's raw-ring snippet differs from writeReadBack's body in example_test.go: copy the body over")
}
