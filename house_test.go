package uring_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every SQE the library fills is built by a builder of package sqe (which
// checks its arguments and keeps the one encoding of each op): outside sys
// and sqe, no non-test file writes a sys.SQE literal with fields. Zeroing
// one (sys.SQE{}) is not building it.
func TestSQEsAreBuiltBySqe(t *testing.T) {
	literal := regexp.MustCompile(`sys\.SQE\{[^}]`)
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "sys" || path == "sqe" || (path != "." && strings.HasPrefix(d.Name(), ".")) || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if literal.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				found = append(found, path+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, found, "SQEs built outside package sqe")
}
