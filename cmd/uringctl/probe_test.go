package main

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// runProbeJSON runs `uringctl probe --json` in process; it skips when
// io_uring is unavailable here (exit 2), saying why.
func runProbeJSON(t *testing.T) probeReport {
	t.Helper()
	var out, errb bytes.Buffer
	code := run([]string{"probe", "--json"}, &out, &errb)
	var rep probeReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "stdout is one JSON document")
	if code == 2 {
		require.False(t, rep.Available)
		require.NotEmpty(t, rep.Unavailable)
		t.Skipf("io_uring unavailable: %s", rep.Unavailable)
	}
	require.Equal(t, 0, code, "stderr: %s", errb.String())
	require.Empty(t, errb.String())
	return rep
}

func TestProbeJSON(t *testing.T) {
	rep := runProbeJSON(t)
	require.Equal(t, 2, rep.Schema)
	require.True(t, rep.Available)
	require.Equal(t, uring.KernelRelease(), rep.Kernel)
	require.Len(t, rep.Opcodes, int(sys.OpLast))
	for i, it := range rep.Opcodes {
		require.Equal(t, uint64(i), it.Value)
		require.Equal(t, sys.Op(i).String(), it.Name)
		require.Equal(t, "IORING_OP_"+sys.Op(i).String(), it.CName)
		require.NotEmpty(t, it.Since)
		require.Empty(t, it.Error)
		require.Equal(t, it.Supported, it.Reason == "", "a reason exactly when unsupported: %+v", it)
	}
	require.Len(t, rep.SetupFlags, len(sys.SetupFlagList))
	require.Len(t, rep.Features, len(sys.FeatureList))
	require.Len(t, rep.RegisterOpcodes, int(sys.RegisterOpLast)+1)
	require.Len(t, rep.EnterFlags, 8)
	require.Len(t, rep.Capabilities, len(uring.Capabilities()))
	for i, it := range rep.Capabilities {
		c := uring.Capability(i)
		require.Equal(t, uint64(i), it.Value)
		require.Equal(t, c.String(), it.Name)
		require.Equal(t, c.CName(), it.CName)
		require.Equal(t, c.Since(), it.Since)
		require.Empty(t, it.Error)
		require.Equal(t, it.Supported, it.Reason == "", "a reason exactly when unsupported: %+v", it)
		require.Equal(t, uring.CheckCapability(c) == nil, it.Supported, "%v", c)
		if !it.Supported {
			require.Contains(t, it.Reason, "needs Linux "+c.Since(), "%v", c)
		}
	}
	for _, list := range [][]probeItem{rep.SetupFlags, rep.Features, rep.RegisterOpcodes, rep.EnterFlags} {
		for _, it := range list {
			require.NotEmpty(t, it.CName, "%+v", it)
			require.NotEmpty(t, it.Since, "%+v", it)
			require.Empty(t, it.Error, "%+v", it)
		}
	}
	require.NotNil(t, rep.Limits)
	require.GreaterOrEqual(t, rep.Limits.MaxCQEntries, rep.Limits.MaxSQEntries)
	if v, err := uring.IOUringDisabled(); err == nil {
		require.Equal(t, &v, rep.IOUringDisabled)
	} else {
		require.Nil(t, rep.IOUringDisabled, "no sysctl before 6.6: null")
	}

	if ok, _ := uring.KernelAtLeast("6.18"); !ok || rep.Opcodes[sys.OpNop128].Supported {
		t.Skipf("the exact answers below are for Linux 6.18 (PIPE yes, NOP128 no); running %s", rep.Kernel)
	}
	require.Equal(t, "PIPE", rep.Opcodes[62].Name)
	require.True(t, rep.Opcodes[62].Supported)
	require.Equal(t, "NOP128", rep.Opcodes[63].Name)
	require.False(t, rep.Opcodes[63].Supported)
	require.Contains(t, rep.Opcodes[63].Reason, "opcode IORING_OP_NOP128 needs Linux 6.19")
	require.Equal(t, "socket getsockname", rep.Capabilities[uring.CapSocketGetsockname].Name)
	require.False(t, rep.Capabilities[uring.CapSocketGetsockname].Supported)
	require.True(t, rep.Capabilities[uring.CapBufRingInc].Supported)
	byName := func(items []probeItem, name string) probeItem {
		for _, it := range items {
			if it.Name == name {
				return it
			}
		}
		t.Fatalf("%s missing", name)
		return probeItem{}
	}
	require.True(t, byName(rep.SetupFlags, "CQE_MIXED").Supported)
	require.False(t, byName(rep.SetupFlags, "SQE_MIXED").Supported)
	require.True(t, byName(rep.RegisterOpcodes, "REGISTER_QUERY").Supported)
	require.False(t, byName(rep.RegisterOpcodes, "REGISTER_ZCRX_CTRL").Supported)
	require.Equal(t, "6.3", byName(rep.RegisterOpcodes, "USE_REGISTERED_RING").Since)
	for _, d := range rep.BlockDevices {
		if d.Name == "vda" {
			require.False(t, d.Polled)
			require.Contains(t, d.Reason, "no poll queues")
		}
	}
}

func TestProbeTable(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"probe"}, &out, &errb)
	if code == 2 {
		t.Skipf("io_uring unavailable: %s", errb.String())
	}
	require.Equal(t, 0, code, "stderr: %s", errb.String())
	s := out.String()
	require.Contains(t, s, "kernel                    "+uring.KernelRelease())
	require.Regexp(t, `(?m)^0\s+NOP\s+5\.1\s+yes$`, s)
	require.Regexp(t, `(?m)^0x2\s+SQPOLL\s+5\.1\s+(yes|no)$`, s)
	require.Regexp(t, `(?m)^capabilities \(\d+ of \d+ supported\)$`, s)
	require.Regexp(t, `(?m)^1\s+multishot accept\s+5\.19\s+(yes|no)$`, s)
	require.Contains(t, s, "task runtime              io_uring (io_uring is available)\n")
	require.Regexp(t, `\npolled I/O \(IORING_SETUP_IOPOLL\)\nDEVICE +POLLED +REASON\n`, s, "the column widths follow the longest device name")
}

func TestProbeTableUnavailable(t *testing.T) {
	one := 2
	var out bytes.Buffer
	require.NoError(t, writeProbeTable(&out, probeReport{
		Kernel: "6.6.0", IOUringDisabled: &one,
		Unavailable: "uring: unavailable: kernel.io_uring_disabled = 2 disables io_uring for every process (io_uring_setup: operation not permitted)",
	}))
	s := out.String()
	require.NotContains(t, s, "task runtime              io_uring")
	require.Contains(t, s, "io_uring                  UNAVAILABLE: uring: unavailable: kernel.io_uring_disabled = 2")
	require.Contains(t, s, "kernel.io_uring_disabled  2\n")
	require.NotContains(t, s, "opcodes (")

	out.Reset()
	require.NoError(t, writeProbeTable(&out, probeReport{Kernel: "6.1", Available: true,
		Opcodes: []probeItem{{Value: 0, Name: "NOP", Since: "5.1", Error: "ENOMEM"}}}))
	require.Contains(t, out.String(), "no such sysctl")
	require.Regexp(t, `(?m)^0\s+NOP\s+5\.1\s+error: ENOMEM$`, out.String())
	require.Contains(t, out.String(), "opcodes (0 of 1 supported)")
}

func TestProbeFlags(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"probe", "--help"}, &out, &errb))
	require.Contains(t, out.String(), "usage: uringctl probe [--json]")
	require.Contains(t, out.String(), "-json")
	require.Contains(t, out.String(), "Exit status: 0 ok, 1 error or bad flags, 2 io_uring unavailable")
	require.Empty(t, errb.String())

	out.Reset()
	require.Equal(t, 0, run([]string{"probe", "-h"}, &out, &errb))
	require.Contains(t, out.String(), "usage: uringctl probe")

	out.Reset()
	require.Equal(t, 1, run([]string{"probe", "--jsn"}, &out, &errb))
	require.Empty(t, out.String())
	require.Equal(t, "uringctl probe: flag provided but not defined: -jsn (see uringctl probe --help)\n", errb.String())

	errb.Reset()
	require.Equal(t, 1, run([]string{"probe", "now"}, &out, &errb))
	require.True(t, strings.HasPrefix(errb.String(), `uringctl probe: unexpected argument "now"`))
	require.Empty(t, out.String())
}

// uringctl uses the library's public API: no file of the command imports
// internal/feature (the probe data is public in package uring).
func TestNoInternalFeature(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range af.Imports {
			require.NotEqual(t, `"github.com/pure-uring/uring/internal/feature"`, imp.Path.Value, "%s", f)
		}
	}
}
