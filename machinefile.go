package bglua

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/msglayer"
)

// machine resolves Config.Machine: a built-in name or a Lua file that returns a
// table of fields to override, e.g.
//
//	return { base = "bgl", hop_cycles = 70, packet_read_cycles = 180 }
//
// base picks the machine the file starts from (bgl by default).
//
// The file runs under the run's guard g (nil: none): the limits of the
// Config and an interrupt stop a file that loops or grows without end.
func machine(name string, readFile func(string) ([]byte, error), g *luabind.Guard) (*msglayer.Machine, error) {
	if name == "" {
		name = "bgl"
	}
	if m, ok := msglayer.Named(name); ok {
		return m, nil
	}
	if err := knownMachine(name); err != nil {
		return nil, err
	}
	src, err := readFile(name)
	if err != nil {
		return nil, badField("Machine", "", "cannot read machine file: %v", unwrapPath(err))
	}
	fields, err := evalMachineFile(name, src, g)
	if err != nil {
		if g.Stopped() {
			return nil, err
		}
		return nil, usage("%v", err)
	}
	base := "bgl"
	if b, ok := fields["base"]; ok {
		s, isString := b.(string)
		if _, known := msglayer.Named(s); !isString || !known {
			return nil, usage("%s: field base: want one of %s", name, strings.Join(msglayer.MachineNames, ", "))
		}
		base = s
		delete(fields, "base")
	}
	m, _ := msglayer.Named(base)
	m.Name = name
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if err := m.Set(k, fields[k]); err != nil {
			return nil, usage("%s: %v", name, err)
		}
	}
	if err := m.Validate(); err != nil {
		return nil, usage("%s: %v", name, err)
	}
	if err := fitsVirtualTime(m); err != nil {
		return nil, usage("%s: %v", name, err)
	}
	if m.CPUsPerNode > maxCPUsPerNode {
		// The message layer holds every CPU of every node: 1e9 a node ran
		// the process out of memory (a Go crash) before any rank started.
		return nil, usage("%s: field cpus_per_node: %d is more than bglua models (at most %d)", name, m.CPUsPerNode, maxCPUsPerNode)
	}
	return m, nil
}

// knownMachine checks that name ("" for bgl) is a built-in machine or a
// FILE.lua.
func knownMachine(name string) error {
	if _, ok := msglayer.Named(name); ok || name == "" || strings.HasSuffix(name, ".lua") {
		return nil
	}
	return badField("Machine", fmt.Sprintf("%q", name), "unknown machine (valid: %s, or a FILE.lua)", strings.Join(msglayer.MachineNames, ", "))
}

// maxCPUsPerNode bounds a machine file's cpus_per_node (BG/L has 2; the
// model uses the first two, for the rank and the coprocessor).
const maxCPUsPerNode = 64

// minRate is the slowest rate in bytes per cycle a machine file may give:
// at it, moving a TiB takes 2^63 cycles, all virtual time can hold. A rate
// below it would turn a large message's time into cycles past int64.
const minRate = float64(1<<40) / float64(1<<63)

// fitsVirtualTime checks that the machine's numbers give durations that
// virtual time (int64 cycles) can hold: finite, and rates (bytes per
// cycle) not so slow that a message's cycles overflow.
func fitsVirtualTime(m *msglayer.Machine) error {
	for _, f := range m.Fields() {
		x, ok := f.Value.(float64)
		if !ok {
			continue
		}
		switch {
		case x != x || math.IsInf(x, 0):
			return fmt.Errorf("field %s: want a finite number, got %v", f.Name, x)
		case strings.HasSuffix(f.Name, "_bytes_per_cycle") && x < minRate:
			return fmt.Errorf("field %s: %g bytes per cycle is too slow for virtual time: a TiB would take more than %d cycles (want at least %g)",
				f.Name, x, int64(math.MaxInt64), minRate)
		}
	}
	return nil
}

// evalMachineFile runs a machine file in a state with only the base, string
// and math libraries and returns the fields of the table it returns.
func evalMachineFile(name string, src []byte, g *luabind.Guard) (map[string]any, error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	g.Govern(L)
	for _, lib := range []struct {
		n string
		f lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.f))
		L.Push(lua.LString(lib.n))
		L.Call(1, 0)
	}
	for _, unsafe := range []string{"dofile", "loadfile", "require", "module", "print"} {
		L.SetGlobal(unsafe, lua.LNil)
	}
	prog, err := luabind.Compile(name, "", src)
	if err != nil {
		return nil, err
	}
	L.Push(L.NewFunctionFromProto(prog.Proto))
	if err := L.PCall(0, 1, nil); err != nil {
		if g.Stopped() {
			return nil, &machineStopped{file: name, cause: g.Cause()}
		}
		// One line: the error's own message (it starts with file:line),
		// without the traceback of a file a few lines long.
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok && ae.Object != nil {
			msg = luabind.ErrorObjectString(ae.Object)
		}
		if !strings.HasPrefix(msg, name+":") {
			msg = name + ": " + msg
		}
		return nil, errors.New(msg)
	}
	t, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%s: must return a table of machine fields (got %s)", name, L.Get(-1).Type())
	}
	fields := map[string]any{}
	var bad error
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			if bad == nil {
				bad = fmt.Errorf("%s: key %v: field names are strings", name, k)
			}
			return
		}
		switch x := v.(type) {
		case lua.LNumber:
			fields[string(ks)] = float64(x)
		case lua.LString:
			fields[string(ks)] = string(x)
		case lua.LBool:
			fields[string(ks)] = bool(x)
		default:
			fields[string(ks)] = msglayer.OtherValue(x.Type().String())
		}
	})
	return fields, bad
}

// machineStopped is a machine file stopped from outside while it ran (a
// limit or an interrupt); it unwraps to the cause, whose exit status it has.
type machineStopped struct {
	file  string
	cause error
}

func (e *machineStopped) Error() string {
	var l *LimitError
	if errors.As(e.cause, &l) {
		switch l.What {
		case "wall time":
			return fmt.Sprintf("machine file %s still running at the wall-time limit of %s: a loop without end? (Config.Timeout)", e.file, l.Limit)
		case "memory":
			return fmt.Sprintf("machine file %s passed the memory limit of %s: a table or string that grows without end? (Config.MaxMemory)", e.file, l.Limit)
		}
	}
	if errors.As(e.cause, new(*InterruptedError)) || errors.Is(e.cause, context.Canceled) {
		return fmt.Sprintf("interrupted while the machine file %s ran", e.file)
	}
	return fmt.Sprintf("machine file %s: %v", e.file, e.cause)
}

func (e *machineStopped) Unwrap() error { return e.cause }
