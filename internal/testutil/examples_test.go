package testutil

import (
	"errors"
	"flag"
	"testing"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/stretchr/testify/require"
)

func TestSkipExamplesUnless(t *testing.T) {
	kernel := feature.KernelRelease()
	if _, err := feature.KernelAtLeast("5.1"); err != nil {
		t.Skipf("the kernel release %q cannot be compared: %v", kernel, err)
	}
	f := flag.Lookup("test.skip")
	require.NotNil(t, f)
	old := f.Value.String()
	t.Cleanup(func() { require.NoError(t, f.Value.Set(old)) })
	skipWith := func(start string, err error) string {
		require.NoError(t, f.Value.Set(start))
		SkipExamplesUnless(err, "ExampleA", "ExampleB")
		return f.Value.String()
	}

	newer := &feature.UnsupportedError{Feature: "x", MinimumVersion: "99.0", Kernel: kernel}
	require.Equal(t, "^(ExampleA|ExampleB)$", skipWith("", newer))
	require.Equal(t, "TestC|^(ExampleA|ExampleB)$", skipWith("TestC", newer))
	require.Equal(t, "TestC/sub", skipWith("TestC/sub", newer), "levels: left alone")

	require.Empty(t, skipWith("", nil))
	has := &feature.UnsupportedError{Feature: "x", MinimumVersion: "5.1", Kernel: kernel}
	require.Empty(t, skipWith("", has), "the kernel should have it: the examples run")
	require.Empty(t, skipWith("", errors.New("EMFILE")), "a failed probe: the examples run")
}
