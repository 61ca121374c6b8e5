package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bglua/bglua"
)

var update = flag.Bool("update", false, "rewrite the golden files of the end-to-end tests")

// summaryLine holds host-dependent figures (host time, memory); the golden
// files keep everything else byte for byte.
var summaryLine = regexp.MustCompile(`(?m)^bglua: \d+ ranks on .*peak .*\n`)

// runCLI runs the command in-process and returns what a user would see.
func runCLI(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// memoryInUse is how much memory the process used when a limit was reached.
var memoryInUse = regexp.MustCompile(`\([0-9.]+ [KMGT]?i?B in use\)`)

func transcript(args []string) string {
	out, errOut, code := runCLI(args...)
	errOut = summaryLine.ReplaceAllString(errOut, "bglua: <summary>\n")
	errOut = memoryInUse.ReplaceAllString(errOut, "(<memory> in use)")
	return fmt.Sprintf("$ bglua %s\n%s--- stderr\n%s--- exit %d\n", strings.Join(args, " "), out, errOut, code)
}

// The scripts are the examples users start from; their output is the story
// of the model, so any change in it is reviewed as a diff (-update).
var goldenCases = []struct {
	name string
	args []string
}{
	{"hello", []string{"-ranks", "8", "../../scripts/hello.lua"}},
	{"ring", []string{"-ranks", "16", "../../scripts/ring.lua", "3"}},
	{"pingpong_near", []string{"-ranks", "2", "../../scripts/pingpong.lua"}},
	{"pingpong_far", []string{"-ranks", "512", "../../scripts/pingpong.lua"}},
	{"halo3d", []string{"-ranks", "64", "../../scripts/halo3d.lua", "3"}},
	{"halo3d_vn", []string{"-ranks", "64", "--mode", "vn", "../../scripts/halo3d.lua", "3"}},
	{"deadlock", []string{"-n", "4", "testdata/progs/deadlock.lua"}},
	{"deadlock_waitall", []string{"-n", "4", "testdata/progs/deadlock_waitall.lua"}},
	{"nbc", []string{"-n", "4", "testdata/progs/nbc.lua"}},
	{"nbc_inline", []string{"-n", "4", "--progress-model", "inline", "testdata/progs/nbc.lua"}},
	{"nbc_vn_stats", []string{"-n", "4", "--mode", "vn", "--stats", "testdata/progs/nbc.lua"}},
	{"nbc_deadlock", []string{"-n", "2", "--mesh", "testdata/progs/nbc_deadlock.lua"}},
	{"nbc_error_alg", []string{"-n", "2", "--coll", "allreduce=bad", "testdata/progs/nbc_errors.lua"}},
	{"nbc_error_op", []string{"-n", "2", "testdata/progs/nbc_errors.lua", "op"}},
	{"nbc_unwaited", []string{"-n", "4", "--progress-model", "inline", "--coll", "allreduce=lua_recursive_doubling", "testdata/progs/nbc_unwaited.lua"}},
	{"nbc_bcs", []string{"-n", "4", "--runtime", "bcs", "testdata/progs/nbc.lua"}},
	{"nbc_bad_progress_model", []string{"-n", "2", "--progress-model", "sometimes", "testdata/progs/nbc.lua"}},
	{"gallery_overlap", []string{"-n", "7", "--coll", "allreduce=ring", "../../scripts/gallery/overlap.lua", "0", "20"}},
	{"gallery_overlap_inline", []string{"-n", "7", "--coll", "allreduce=ring", "--progress-model", "inline", "../../scripts/gallery/overlap.lua", "0", "20"}},
	{"op_nil", []string{"-n", "4", "testdata/progs/op_nil.lua"}},
	{"topology", []string{"-n", "8", "testdata/progs/topology.lua"}},
	{"lua_error", []string{"-n", "3", "testdata/progs/error.lua"}},
	{"abort", []string{"-n", "3", "testdata/progs/abort.lua"}},
	{"p2p", []string{"-n", "5", "testdata/progs/p2p.lua"}},
	{"leftovers", []string{"-n", "3", "testdata/progs/leftovers.lua"}},
	{"leftovers_quiet", []string{"-n", "3", "--quiet", "testdata/progs/leftovers.lua"}},
	{"sandbox", []string{"-n", "1", "testdata/progs/sandbox.lua"}},
	{"quiet", []string{"-n", "2", "--quiet", "../../scripts/hello.lua"}},
	{"machine_file", []string{"--machine", "../../scripts/machines/slow_hops.lua", "testdata/progs/config.lua"}},
	{"machine_bgc", []string{"--machine", "bgc", "-n", "512", "../../scripts/pingpong.lua"}},
	{"units_block", []string{"--machine", "bgc", "-n", "8", "testdata/progs/units_block.lua"}},
	{"ml", []string{"-n", "3", "testdata/progs/ml.lua"}},
	{"fig4a", []string{"-n", "64", "--torus", "64x1x1", "--mesh", "../../scripts/figures/fig4a.lua"}},
	{"table1", []string{"-n", "2", "../../scripts/figures/table1.lua"}},
	{"fig4b", []string{"-n", "2", "../../scripts/figures/fig4b.lua"}},
	{"fig4cf", []string{"-n", "27", "--torus", "3x3x3", "../../scripts/figures/fig4cf.lua"}},
	// What a coarse grain does to the figure whose CPUs serve several links.
	{"fig4cf_grain4", []string{"--grain", "4", "-n", "27", "--torus", "3x3x3", "../../scripts/figures/fig4cf.lua"}},
	{"protocols_co", []string{"-n", "4", "testdata/progs/protocols.lua"}},
	{"protocols_vn", []string{"-n", "4", "--mode", "vn", "testdata/progs/protocols.lua"}},
	{"stats", []string{"--stats", "-n", "16", "../../scripts/halo3d.lua", "2"}},
	{"stats_fallback", []string{"--stats", "--coll", "allreduce=tree", "-n", "8", "testdata/progs/p2p.lua"}},
	// Trace regions, a Lua algorithm's calls under its collective, the
	// busiest links and what used them; a region ended that is not open,
	// another than the innermost, one left open.
	{"nbc_mix_forms", []string{"-n", "2", "testdata/progs/nbc_mix_forms.lua"}},
	{"stats_methods", []string{"--stats", "-n", "4", "testdata/progs/stats_methods.lua"}},
	{"stats_regions", []string{"--stats", "-n", "8", "--coll", "allreduce=lua_recursive_doubling", "testdata/progs/regions.lua"}},
	{"regions_unbalanced", []string{"-n", "8", "testdata/progs/regions.lua", "unbalanced"}},
	{"regions_mismatch", []string{"-n", "8", "testdata/progs/regions.lua", "mismatch"}},
	{"regions_open", []string{"-n", "8", "testdata/progs/regions.lua", "open"}},
	// Allreduce algorithms on doubles and on mpi.bytes of the same size, in
	// runs of their own: the same times, the algorithm that ran, or the
	// error of one that cannot run.
	{"phantom_auto_doubles", []string{"--stats", "-n", "64", "testdata/progs/phantom.lua", "4096", "doubles"}},
	{"phantom_auto_bytes", []string{"--stats", "-n", "64", "testdata/progs/phantom.lua", "4096", "bytes"}},
	{"phantom_ring_doubles", []string{"--stats", "--coll", "allreduce=ring", "-n", "64", "testdata/progs/phantom.lua", "4096", "doubles"}},
	{"phantom_ring_bytes", []string{"--stats", "--coll", "allreduce=ring", "-n", "64", "testdata/progs/phantom.lua", "4096", "bytes"}},
	{"phantom_rabenseifner_doubles", []string{"--coll", "allreduce=rabenseifner", "-n", "64", "testdata/progs/phantom.lua", "4096", "doubles"}},
	{"phantom_rabenseifner_bytes", []string{"--coll", "allreduce=rabenseifner", "-n", "64", "testdata/progs/phantom.lua", "4096", "bytes"}},
	{"phantom_tree_doubles", []string{"--stats", "--coll", "allreduce=tree", "-n", "64", "testdata/progs/phantom.lua", "4096", "doubles"}},
	{"phantom_tree_bytes", []string{"--stats", "--coll", "allreduce=tree", "-n", "64", "testdata/progs/phantom.lua", "4096", "bytes"}},
	{"phantom_tree_512k_doubles", []string{"--coll", "allreduce=tree", "-n", "64", "testdata/progs/phantom.lua", "524288", "doubles"}},
	{"phantom_tree_512k_bytes", []string{"--coll", "allreduce=tree", "-n", "64", "testdata/progs/phantom.lua", "524288", "bytes"}},
	{"phantom_ring_7_doubles", []string{"-n", "7", "--coll", "allreduce=ring", "testdata/progs/phantom.lua", "100", "doubles"}},
	{"phantom_ring_7_bytes", []string{"-n", "7", "--coll", "allreduce=ring", "testdata/progs/phantom.lua", "100", "bytes"}},
	{"phantom_ring_user_op", []string{"-n", "4", "--coll", "allreduce=ring", "testdata/progs/phantom.lua", "4096", "user"}},
	{"gallery_jacobi", []string{"-n", "4", "../../scripts/gallery/jacobi.lua", "8"}},
	{"gallery_md", []string{"-n", "27", "../../scripts/gallery/md.lua", "5", "4"}},
	{"gallery_coll_sweep", []string{"-n", "8", "--coll", "bcast=scatter_allgather", "../../scripts/gallery/coll_sweep.lua", "4096"}},
	{"gallery_coll_sweep_allreduce", []string{"-n", "8", "../../scripts/gallery/coll_sweep.lua", "64", "allreduce"}},
	{"gallery_bt_naive", []string{"-n", "64", "--torus", "4x4x4", "../../scripts/gallery/bt_mapping.lua", "2"}},
	{"anywhere", []string{"-n", "3", "testdata/progs/anywhere.lua"}},
	{"collectives", []string{"-n", "7", "testdata/progs/collectives.lua"}},
	// Lua collective algorithms (stdlib/coll.lua) against the built-ins'
	// results, called directly and selected with --coll.
	{"coll_lua_1", []string{"-n", "1", "--coll", "bcast=lua_binomial,allgather=lua_ring,allreduce=lua_recursive_doubling,alltoall=lua_bruck", "testdata/progs/coll_lua.lua"}},
	{"coll_lua_2", []string{"-n", "2", "--coll", "bcast=lua_line,allgather=lua_ring,allreduce=lua_recursive_doubling,alltoall=lua_bruck", "testdata/progs/coll_lua.lua"}},
	{"coll_lua_3", []string{"-n", "3", "--coll", "bcast=lua_octree,allgather=lua_ring,allreduce=lua_recursive_doubling,alltoall=lua_bruck", "testdata/progs/coll_lua.lua"}},
	{"coll_lua_7", []string{"-n", "7", "--coll", "bcast=lua_binomial,allgather=lua_ring,allreduce=lua_recursive_doubling,alltoall=lua_bruck", "testdata/progs/coll_lua.lua"}},
	{"coll_lua_64", []string{"-n", "64", "--coll", "bcast=lua_octree,allgather=lua_ring,allreduce=lua_recursive_doubling,alltoall=lua_bruck", "testdata/progs/coll_lua.lua"}},
	{"coll_lua_builtin", []string{"-n", "7", "testdata/progs/coll_lua.lua"}},
	{"coll_unregistered", []string{"-n", "3", "--coll", "bcast=unregistered", "testdata/progs/coll_errors.lua", "unregistered"}},
	{"coll_bad_collective", []string{"-n", "3", "testdata/progs/coll_errors.lua", "badname"}},
	{"coll_builtin_name", []string{"-n", "3", "testdata/progs/coll_errors.lua", "builtin"}},
	{"coll_registered_twice", []string{"-n", "3", "testdata/progs/coll_errors.lua", "twice"}},
	{"coll_no_return", []string{"-n", "3", "--coll", "allreduce=silent", "testdata/progs/coll_errors.lua", "noreturn"}},
	{"coll_short_gather", []string{"-n", "3", "--coll", "gatherv=short", "testdata/progs/coll_errors.lua", "gather"}},
	// Parameters of collective algorithms (--coll NAME=ALG:KEY=VALUE,...):
	// a Lua algorithm gets them as a table (empty without), a built-in's
	// change its time, unknown ones and bad values are usage errors, and
	// --coll help with a program lists what it registers.
	{"coll_params_lua", []string{"-n", "8", "--coll", "bcast=chain:seg=8k,radix=4,label=fast", "testdata/progs/coll_params.lua"}},
	{"coll_params_lua_none", []string{"-n", "8", "--coll", "bcast=chain", "testdata/progs/coll_params.lua"}},
	{"coll_params_lua_bad", []string{"-n", "8", "--coll", "bcast=chain:seg=none", "testdata/progs/coll_params.lua"}},
	{"coll_params_torus", []string{"--stats", "-n", "8", "--coll", "bcast=torus", "testdata/progs/coll_params.lua"}},
	{"coll_params_torus_routes1", []string{"--stats", "-n", "8", "--coll", "bcast=torus:routes=1", "testdata/progs/coll_params.lua"}},
	{"coll_params_unknown", []string{"-n", "8", "--coll", "bcast=torus:seg=32k", "testdata/progs/coll_params.lua"}},
	{"coll_params_bad_value", []string{"-n", "8", "--coll", "bcast=torus:routes=many", "testdata/progs/coll_params.lua"}},
	{"coll_params_none", []string{"-n", "8", "--coll", "allreduce=ring,bcast=binomial:seg=1k", "testdata/progs/coll_params.lua"}},
	{"coll_params_not_collective", []string{"-n", "8", "--coll", "bcast=torus,routes=2", "testdata/progs/coll_params.lua"}},
	{"coll_help_script", []string{"--coll", "help", "-n", "4", "testdata/progs/coll_params.lua"}},
	{"coll_help_stdlib", []string{"--coll", "help", "testdata/progs/coll_lua.lua"}},
	{"coll_help_error", []string{"--coll", "help", "-n", "3", "testdata/progs/coll_errors.lua", "builtin"}},
	{"coll_help_no_program", []string{"--coll", "help", "testdata/progs/nosuch.lua"}},
	{"test_coll_params", []string{"test", "testdata/suites/coll"}},
	{"mismatch_root_binomial", []string{"-n", "8", "--coll", "bcast=binomial", "testdata/progs/mismatch.lua", "root"}},
	{"mismatch_root_tree", []string{"-n", "8", "--coll", "bcast=tree", "testdata/progs/mismatch.lua", "root"}},
	{"mismatch_root_auto", []string{"-n", "8", "testdata/progs/mismatch.lua", "root"}},
	{"mismatch_roots_binomial", []string{"-n", "2", "--coll", "bcast=binomial", "testdata/progs/mismatch.lua", "roots"}},
	{"mismatch_op_recursive_doubling", []string{"-n", "8", "--coll", "allreduce=recursive_doubling", "testdata/progs/mismatch.lua", "op"}},
	{"mismatch_luaop", []string{"-n", "4", "testdata/progs/mismatch.lua", "luaop"}},
	{"mismatch_count_allgather", []string{"-n", "8", "testdata/progs/mismatch.lua", "count"}},
	{"mismatch_count_gather", []string{"-n", "8", "--coll", "gather=linear", "testdata/progs/mismatch.lua", "gather"}},
	{"mismatch_split", []string{"-n", "8", "testdata/progs/mismatch.lua", "split"}},
	{"mismatch_lua_alg", []string{"-n", "8", "--coll", "bcast=lua_binomial", "testdata/progs/mismatch.lua", "lua"}},
	{"mismatch_bcs", []string{"-n", "8", "--runtime", "bcs", "testdata/progs/mismatch.lua", "root"}},
	{"mismatch_bcs_binomial", []string{"-n", "8", "--runtime", "bcs", "--coll", "bcast=binomial", "testdata/progs/mismatch.lua", "root"}},
	{"mismatch_bcs_roots", []string{"-n", "2", "--runtime", "bcs", "--coll", "bcast=binomial", "testdata/progs/mismatch.lua", "roots"}},
	{"mismatch_bcs_op", []string{"-n", "8", "--runtime", "bcs", "--coll", "allreduce=recursive_doubling", "testdata/progs/mismatch.lua", "op"}},
	{"mismatch_bcs_lua_alg", []string{"-n", "8", "--runtime", "bcs", "--coll", "bcast=lua_binomial", "testdata/progs/mismatch.lua", "lua"}},
	{"mismatch_bcs_late", []string{"-n", "8", "--runtime", "bcs", "--coll", "bcast=binomial", "testdata/progs/mismatch.lua", "late"}},
	{"mismatch_late_binomial", []string{"-n", "8", "--coll", "bcast=binomial", "testdata/progs/mismatch.lua", "late"}},
	{"arg_nan", []string{"-n", "2", "testdata/progs/mismatch.lua", "nan"}},
	{"arg_fraction", []string{"-n", "2", "testdata/progs/mismatch.lua", "frac"}},
	{"arg_bytes_nan", []string{"-n", "1", "testdata/progs/mismatch.lua", "bytes"}},
	{"compute_1e300", []string{"-n", "1", "testdata/progs/mismatch.lua", "compute"}},
	{"defaults", []string{"-n", "3", "testdata/progs/defaults.lua"}},
	{"mpi4py_names", []string{"-n", "2", "testdata/progs/mpi4py_names.lua"}},
	{"sendrecv_order", []string{"-n", "4", "testdata/progs/sendrecv_order.lua"}},
	{"abort_code", []string{"-n", "3", "testdata/progs/defaults.lua", "abort"}},
	{"cart", []string{"-n", "12", "testdata/progs/cart.lua"}},
	{"bcs_p2p", []string{"-n", "5", "--runtime", "bcs", "testdata/progs/p2p.lua"}},
	// MPI-3 point-to-point (issue 22): ssend, matched probes, cancel,
	// persistent requests, neighbourhood collectives; under bcs without
	// what it does not offer; each misuse's error; a deadlock among them.
	{"p2p_mpi3", []string{"-n", "6", "testdata/progs/p2p_mpi3.lua"}},
	{"p2p_mpi3_bcs", []string{"-n", "6", "--runtime", "bcs", "testdata/progs/p2p_mpi3.lua", "bcs"}},
	{"deadlock_mpi3", []string{"-n", "3", "testdata/progs/deadlock_mpi3.lua"}},
	{"mpi3_mrecv_twice", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "mrecv_twice"}},
	{"mpi3_start_active", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "start_active"}},
	{"mpi3_startall_active", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "startall_active"}},
	{"mpi3_start_plain", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "start_plain"}},
	{"mpi3_cancel_send", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "cancel_send"}},
	{"mpi3_neighbor_world", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "neighbor_world"}},
	{"mpi3_neighbor_split", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "neighbor_split"}},
	{"mpi3_neighbor_short", []string{"-n", "2", "testdata/progs/p2p_mpi3_errors.lua", "neighbor_short"}},
	{"bcs_collectives", []string{"-n", "7", "--runtime", "bcs", "testdata/progs/collectives.lua"}},
	{"bcs_core", []string{"-n", "4", "--runtime", "bcs", "testdata/progs/bcs_core.lua"}},
	{"bcs_direct", []string{"-n", "1", "testdata/progs/bcs_direct.lua"}},
	{"bcs_barrier_every", []string{"-n", "16", "--runtime", "bcs", "--timeslice", "250us", "../../scripts/bcs/barrier_every.lua", "12"}},
	{"bcs_blocking_send", []string{"-n", "2", "--runtime", "bcs", "--timeslice", "250us", "../../scripts/bcs/blocking_send.lua", "200"}},
	{"bcs_sweep3d", []string{"-n", "4", "--runtime", "bcs", "../../scripts/bcs/sweep3d.lua", "blocking", "3"}},
	{"bcs_sage", []string{"-n", "8", "--runtime", "bcs", "../../scripts/bcs/sage.lua", "nonblocking", "3", "2"}},
	{"bcs_unsafe_ring", []string{"-n", "3", "--runtime", "bcs", "testdata/progs/anywhere.lua"}},
	{"bcs_bad_timeslice", []string{"-n", "2", "--runtime", "bcs", "--timeslice", "0us", "../../scripts/hello.lua"}},
	{"bcs_bad_mds", []string{"-n", "2", "--runtime", "bcs", "--mds", "xmds", "../../scripts/hello.lua"}},
	{"bcs_emds_direct", []string{"-n", "2", "--mds", "emds", "../../scripts/hello.lua"}},
	// Limits and polling (a spinning rank, a value past the memory limit,
	// an input file without end, polling loops on every machine and mode).
	{"timeout_spin", []string{"-n", "4", "--timeout", "300ms", "testdata/progs/spin.lua"}},
	{"max_memory_value", []string{"-n", "1", "--max-memory", "1GiB", "testdata/progs/bigvalue.lua"}},
	{"mapping_unbounded", []string{"-n", "2", "--mapping", "/dev/zero", "../../scripts/hello.lua"}},
	{"bad_timeout", []string{"--timeout", "soon", "../../scripts/hello.lua"}},
	{"bad_max_memory", []string{"--max-memory", "lots", "../../scripts/hello.lua"}},
	{"poll_co", []string{"-n", "3", "testdata/progs/poll.lua"}},
	{"poll_vn", []string{"-n", "3", "--mode", "vn", "testdata/progs/poll.lua"}},
	{"poll_heater", []string{"-n", "3", "--mode", "heater", "testdata/progs/poll.lua"}},
	{"poll_bgc", []string{"-n", "3", "--machine", "bgc", "testdata/progs/poll.lua"}},
	{"poll_bcs", []string{"-n", "3", "--runtime", "bcs", "testdata/progs/poll.lua"}},
	{"poll_forever", []string{"-n", "2", "testdata/progs/poll_forever.lua"}},
	// bglua test: busted's hooks in their order, pending cases, negated
	// and unknown matchers, a hook bglua does not have.
	{"test_busted", []string{"test", "-v", "testdata/suites/busted"}},
	// Selecting (--filter and --filter-out take Lua patterns), listing,
	// shuffling with a given seed, TAP.
	{"test_filter", []string{"test", "--filter", "outer", "--filter-out", "inner", "testdata/suites/busted/hooks_spec.lua"}},
	{"test_list", []string{"test", "--list", "--filter", "pend", "testdata/suites"}},
	{"test_tap", []string{"test", "-o", "tap", "--shuffle=3", "testdata/suites/busted", "testdata/suites/failing"}},
	{"test_bad_filter", []string{"test", "--filter", "[a", "testdata/suites/busted"}},
	// The completion scripts, made from the flags: a new flag shows here.
	{"completion_bash", []string{"completion", "bash"}},
	{"completion_zsh", []string{"completion", "zsh"}},
	{"completion_fish", []string{"completion", "fish"}},
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			got := transcript(c.args)
			file := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/bglua -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (go test ./cmd/bglua -update rewrites it):\n--- got\n%s--- want\n%s", file, got, want)
			}
		})
	}
}

// TestDeterministic runs programs with randomness and many ranks twice.
func TestDeterministic(t *testing.T) {
	for _, args := range [][]string{
		{"-ranks", "64", "--seed", "7", "testdata/progs/random.lua"},
		{"-ranks", "64", "../../scripts/halo3d.lua", "2"},
	} {
		a, b := transcript(args), transcript(args)
		if a != b {
			t.Errorf("two runs of %v differ:\n%s\n---\n%s", args, a, b)
		}
	}
}

// TestSeedChangesRandomness checks the seed reaches math.random.
func TestSeedChangesRandomness(t *testing.T) {
	a, _, _ := runCLI("-ranks", "4", "--seed", "1", "testdata/progs/random.lua")
	b, _, _ := runCLI("-ranks", "4", "--seed", "2", "testdata/progs/random.lua")
	if a == b {
		t.Fatalf("seeds 1 and 2 gave the same output:\n%s", a)
	}
}

func TestStatsJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "stats.json")
	_, errOut, code := runCLI("--quiet", "--stats-json", file, "-n", "8", "testdata/progs/regions.lua")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Ranks int `json:"ranks"`
		Stats []struct {
			Name      string `json:"name"`
			Algorithm string `json:"algorithm"`
			Calls     int    `json:"calls"`
		} `json:"primitives"`
		Regions []struct {
			Name  string `json:"name"`
			Calls int    `json:"calls"`
		} `json:"regions"`
		Links []struct {
			Link  string  `json:"link"`
			Bytes int64   `json:"bytes"`
			Busy  float64 `json:"busy_fraction"`
		} `json:"busiest_links"`
		Dims []struct {
			Dim   string `json:"dimension"`
			Links int    `json:"links"`
		} `json:"link_dimensions"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	calls := map[string]int{}
	for _, s := range got.Stats {
		calls[s.Name+"/"+s.Algorithm] = s.Calls
	}
	if got.Ranks != 8 || calls["mpi.allreduce/tree"] != 16 || calls["mpi.sendrecv/"] != 16 {
		t.Errorf("stats: %+v", got)
	}
	if len(got.Regions) != 4 || got.Regions[0].Name != "halo" || got.Regions[0].Calls != 16 {
		t.Errorf("regions: %+v", got.Regions)
	}
	if len(got.Links) == 0 || got.Links[0].Bytes <= 0 || got.Links[0].Busy <= 0 || len(got.Dims) != 3 || got.Dims[0].Links != 16 {
		t.Errorf("links: %+v, dimensions: %+v", got.Links, got.Dims)
	}
}

// --stats and --stats-json say what exact coarsening did, the same
// counts both ways; --grain 1 (batch by batch) leases nothing and gives
// the same output and statistics otherwise.
func TestStatsCoarsening(t *testing.T) {
	type counts struct {
		Recorded int64 `json:"recorded"`
		Leased   int64 `json:"leased"`
		Broke    int64 `json:"broke"`
		Late     int64 `json:"broke_from_checkpoint"`
		NotRun   int64 `json:"events_not_run"`
	}
	line := regexp.MustCompile(`exact coarsening: (\d+) transfers advanced without their events \((\d+) of them broke: (\d+) ran again from a checkpoint, (\d+) from their start\), (\d+) recorded, (\d+) events not run`)
	stats := map[string]string{}
	for _, grain := range []string{"0", "1"} {
		file := filepath.Join(t.TempDir(), "stats.json")
		out, errOut, code := runCLI("--stats", "--stats-json", file, "--grain", grain, "-n", "8", "testdata/progs/large.lua")
		if code != 0 {
			t.Fatalf("--grain %s: exit %d: %s", grain, code, errOut)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Coarse *counts `json:"exact_coarsening"`
		}
		if err := json.Unmarshal(b, &got); err != nil || got.Coarse == nil {
			t.Fatalf("--grain %s: no exact_coarsening in the JSON (%v):\n%s", grain, err, b)
		}
		c := *got.Coarse
		m := line.FindStringSubmatch(errOut)
		if grain == "1" {
			if c != (counts{}) || m != nil {
				t.Errorf("--grain 1 leased: %+v, %q", c, m)
			}
		} else {
			if c.Recorded != 1 || c.Leased != 5 || c.Broke != 3 || c.Late != 3 || c.NotRun <= 0 {
				t.Errorf("--grain 0: %+v, want 1 recorded, 5 leased, 3 broken past a checkpoint", c)
			}
			if want := []string{m0(m), fmt.Sprint(c.Leased), fmt.Sprint(c.Broke), fmt.Sprint(c.Late), fmt.Sprint(c.Broke - c.Late), fmt.Sprint(c.Recorded), fmt.Sprint(c.NotRun)}; m == nil || !slices.Equal(m, want) {
				t.Errorf("--stats line %q, JSON %+v", m, c)
			}
		}
		errOut = regexp.MustCompile(`(?m)^exact coarsening: .*\n`).ReplaceAllString(summaryLine.ReplaceAllString(errOut, ""), "")
		stats[grain] = out + errOut
	}
	if stats["0"] != stats["1"] {
		t.Errorf("output and statistics differ between --grain 0 and 1:\n%s\n---\n%s", stats["0"], stats["1"])
	}
}

// m0 is a regexp match's whole text, "" for none.
func m0(m []string) string {
	if m == nil {
		return ""
	}
	return m[0]
}

// The summary line says when the run was at a coarser grain than the
// machine's, so that a log shows the fidelity it was made at.
func TestSummaryNamesGrain(t *testing.T) {
	r := &bglua.Result{Ranks: 8, Torus: "2x2x2 torus"}
	for _, c := range []struct {
		grain int
		want  string
	}{{0, "8 ranks on 2x2x2 torus: virtual"}, {1, "8 ranks on 2x2x2 torus: virtual"}, {64, "8 ranks on 2x2x2 torus at grain 64: virtual"}} {
		if got := summary(r, c.grain); !strings.Contains(got, c.want) {
			t.Errorf("grain %d: %q lacks %q", c.grain, got, c.want)
		}
	}
}

// A run that took no virtual time has no slowdown to give.
func TestSummarySlowdown(t *testing.T) {
	for _, c := range []struct {
		r    bglua.Result
		want string
	}{
		{bglua.Result{Ranks: 4, Torus: "2x2x1 torus", HostSeconds: 0.001}, "slowdown -,"},
		{bglua.Result{Ranks: 4, Torus: "2x2x1 torus", Seconds: 1e-6, HostSeconds: 0.001}, "slowdown 1e+03x,"},
	} {
		if got := summary(&c.r, 1); !strings.Contains(got, c.want) {
			t.Errorf("%q lacks %q", got, c.want)
		}
	}
}

// The statistics, link rows and regions included, are the same byte for
// byte on every run and for every number of threads on a torus of several
// blocks.
func TestStatsSameForThreads(t *testing.T) {
	args := func(threads string) []string {
		return []string{"--stats", "--threads", threads, "-n", "64", "--torus", "16x8x8", "--coll", "allreduce=lua_recursive_doubling", "testdata/progs/regions.lua"}
	}
	one := transcript(args("1"))
	if !strings.Contains(one, "busiest links") || !strings.Contains(one, "partitions: 2") {
		t.Fatalf("no link rows, or not in partitions:\n%s", one)
	}
	for _, n := range []string{"1", "2", "3"} {
		if got := transcript(args(n)); strings.Replace(got, "--threads "+n, "--threads 1", 1) != one {
			t.Errorf("--threads %s differs from --threads 1:\n%s\n---\n%s", n, got, one)
		}
	}
}
