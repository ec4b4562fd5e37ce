package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func inspectRun(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestInspectHelp(t *testing.T) {
	for _, h := range []string{"--help", "-h"} {
		code, out, errOut := inspectRun("inspect", h)
		require.Equal(t, 0, code)
		require.Empty(t, errOut)
		require.Contains(t, out, "usage: uringctl inspect")
		for _, f := range []string{"-json", "-watch", "-count", "-retries"} {
			require.Contains(t, out, f)
		}
	}
	code, out, _ := inspectRun("--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "inspect")
}

func TestInspectBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--watch", "soon"}, `invalid value "soon" for flag -watch`},
		{[]string{"--watch", "1ns"}, "--watch 1ns: must be between"},
		{[]string{"--watch", "2h"}, "--watch 2h0m0s: must be between"},
		{[]string{"--count", "2"}, "--count 2: needs --watch"},
		{[]string{"--watch", "1s", "--count", "-1"}, "--count -1: must be 0 or more"},
		{[]string{"--retries", "1000"}, "--retries 1000: must be between 0 and 100"},
		{[]string{"abc"}, `PID "abc": not a process id`},
		{[]string{"1", "0"}, `PID "0": not a process id`},
		{[]string{"1", "--json", "-5"}, "flag provided but not defined: -5"},
		{[]string{"-"}, `PID "-": not a process id`},
	} {
		code, out, errOut := inspectRun(append([]string{"inspect"}, tc.args...)...)
		require.Equal(t, 1, code, tc.args)
		require.Empty(t, out, tc.args)
		require.Contains(t, errOut, "uringctl inspect: "+tc.msg, tc.args)
		require.Contains(t, errOut, "see uringctl inspect --help", tc.args)
	}
}

func TestInspectFlagsAnywhere(t *testing.T) {
	f, code, err := parseInspectFlags([]string{"12", "--json", "34", "--watch", "5ms", "--count", "3", "56"}, &bytes.Buffer{})
	require.NoError(t, err)
	require.Equal(t, 0, code)
	require.Equal(t, []int{12, 34, 56}, f.pids)
	require.True(t, f.json)
	require.Equal(t, 3, f.count)
	require.Equal(t, "5ms", f.watch.String())
}

func TestUnavailableText(t *testing.T) {
	require.Empty(t, unavailableText(nil, 1))
	require.Equal(t, "ring unavailable: kernel could not take the ring lock (1 read)", unavailableText([]string{"ring"}, 1))
	s := unavailableText([]string{"files", "buffers"}, 5)
	require.True(t, strings.HasPrefix(s, "file list, buffer list unavailable: kernel could not take the ring lock (5 reads)"), s)
}

func TestInspectTableUnavailable(t *testing.T) {
	var b bytes.Buffer
	inspectTable(&b, inspectReport{Rings: []inspectRing{{PID: 7, Comm: "x", FD: 3, Unavailable: []string{"ring"}, Attempts: 5}}}, true)
	lines := strings.Split(b.String(), "\n")
	require.Len(t, lines, 4)
	f := strings.Fields(lines[2])
	require.Equal(t, []string{"7", "x", "3"}, f[:3])
	for _, c := range f[3:19] {
		require.Equal(t, "?", c, lines[2])
	}
	require.Equal(t, []string{"-", "-"}, f[19:21], "no rates yet")
	require.Contains(t, lines[2], "ring unavailable: kernel could not take the ring lock (5 reads)")
}

// TestInspectTableWithoutIndices: a kernel that prints no ring indices
// (before 5.17) gets "-" in the SQ and CQ columns, the rest as printed.
func TestInspectTableWithoutIndices(t *testing.T) {
	var b bytes.Buffer
	inspectTable(&b, inspectReport{Rings: []inspectRing{{PID: 7, Comm: "x", FD: 3, Unavailable: []string{},
		Files: &inspectFiles{Count: 2}, Buffers: &inspectBufs{}, PollList: 1, Attempts: 1}}}, false)
	lines := strings.Split(b.String(), "\n")
	f := strings.Fields(lines[2])
	require.Equal(t, []string{"7", "x", "3"}, f[:3])
	for _, c := range f[3:14] {
		require.Equal(t, "-", c, lines[2])
	}
	require.Equal(t, []string{"2", "0", "1", "-", "-"}, f[14:19], "files, buffers, poll list, no SQPOLL, no NAPI")
}
