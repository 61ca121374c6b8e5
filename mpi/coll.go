package mpi

import (
	"fmt"
	"sort"
	"strings"
)

// Collective operations. Each algorithm lives in its own file,
// coll_<collective>_<algorithm>.go, and registers itself in an init(). An
// algorithm uses only the collective point-to-point calls of Comm (CSend,
// CIsend, CIrecv, CRecv, CSendrecv, CWaitall, Combine), so its messages travel
// on the communicator's collective context and its costs are those of the
// point-to-point model.
//
// The exported entry points check their arguments, charge the call (Enter) and
// dispatch to the algorithm chosen for the run (World.SetAlgorithm) or, by
// default, to the automatic choice. The run may also select an external
// algorithm, one the program registers while it runs (coll_lua.go). Every
// rank of a communicator must make the same choice, or they wait for messages
// that never come. So the automatic
// choice depends only on what all ranks know alike: the communicator size and
// the operator; value sizes only where MPI requires them equal on every rank
// (predefined reduction operators), or where the one rank that knows the size
// can carry its decision to the others (bcast). The rules, MPICH's where they
// apply, with bounds measured on the default BG/L model (64 to 2,048 ranks)
// where our algorithm set differs from MPICH's:
//
// An algorithm chosen for the run runs as chosen, or the call fails with an
// AlgorithmError saying why; it never hands the call to another algorithm
// unseen. Only the hardware algorithms (tree, gi, torus) fall back, on a
// communicator that is not the whole partition, and the World records it.
// Every call notes what ran (coll_record.go: World.Algorithms, --stats).
//
// The hardware collectives come first wherever they apply (a communicator of
// the whole job; for reductions a predefined operator the tree's ALU can do
// and numeric values): they beat every point-to-point algorithm at every size
// measured (bcast of 1 KiB on 512 ranks: 5 us against 92 us; allreduce of
// 1 MiB: 10 ms against 17.8 ms). Otherwise:
//
//	barrier         gi, else tree, else dissemination.
//	bcast           as MPICH (also --coll bcast=mpich): binomial below 12
//	                KiB or on fewer than 8 ranks; else scatter_recursive_doubling on a power-of-two
//	                communicator below 512 KiB, and scatter_allgather (the
//	                ring) otherwise, where each rank's piece is at least 96
//	                bytes (our guard, not MPICH's: the ring's n-1 steps lose
//	                to the binomial tree below about 64-128 bytes a piece).
//	                Only the root knows the size: it decides, and the first
//	                message, which comes from the same binomial-tree parent
//	                with the same tag in every case, tells every other rank
//	                which one runs.
//	reduce          tree, else binomial.
//	allreduce       ring when the operator is a predefined elementwise one (not
//	                MAXLOC/MINLOC), the value an array of at least as many numbers
//	                as ranks, of at least 16 KiB and 64 bytes a rank; else
//	                recursive_doubling. (MPICH switches to reduce-scatter +
//	                allgather above 2 KiB, with log n latency; our ring pays
//	                2(n-1) latencies: measured crossovers 4 KiB at 8 ranks, 12
//	                KiB at 128, 28 KiB at 512, 60 KiB at 2,048.) Predefined
//	                operators need arrays of equal length on every rank, as MPI
//	                needs equal counts, so every rank decides alike; user
//	                operators, whose values may differ in size, always get
//	                recursive_doubling.
//	gather, scatter binomial.
//	allgather       recursive_doubling when the size is a power of two, else
//	                bruck (MPICH's short-message choices). MPICH takes the ring
//	                when the total exceeds 512 KiB (80 KiB for powers of two),
//	                and so should we (measured: ring 2-3x faster at 512 ranks
//	                from 1 KiB a rank), but contributions may differ in size
//	                (allgatherv, strings, tables) and a rank sees only its own,
//	                so a size rule could make ranks pick different algorithms and
//	                hang. Select ring for large allgathers.
//	alltoall        pairwise.
//	reduce_scatter  pairwise; scan, exscan: linear.

// Algorithm describes one registered collective algorithm.
type Algorithm struct {
	Coll, Name, Doc string
	Params          []ParamSpec // the parameters it takes (registerParams)
	// Where is, for an external algorithm, where the program registered it
	// (file:line); "" for a built-in one.
	Where string
}

// Function types of the algorithms of each collective.
type (
	barrierAlg       func(c *Comm) error
	bcastAlg         func(c *Comm, v Value, root int) (Value, error)
	reduceAlg        func(c *Comm, v Value, op Op, root int) (Value, error)
	allreduceAlg     func(c *Comm, v Value, op Op) (Value, error)
	gatherAlg        func(c *Comm, v Value, root int) ([]Value, error)
	scatterAlg       func(c *Comm, vs []Value, root int) (Value, error)
	allgatherAlg     func(c *Comm, v Value) ([]Value, error)
	alltoallAlg      func(c *Comm, vs []Value) ([]Value, error)
	reduceScatterAlg func(c *Comm, vs []Value, op Op) (Value, error)
	scanAlg          func(c *Comm, v Value, op Op) (Value, error) // scan and exscan
)

type algEntry struct {
	Algorithm
	fn any
}

// registry holds every algorithm, sorted by collective then name. It is only
// written by init functions.
var registry []algEntry

// collAliases maps the v-variants to their collective: values carry their own
// sizes, so gatherv is gather.
var collAliases = [...][2]string{
	{"allgatherv", "allgather"},
	{"alltoallv", "alltoall"},
	{"gatherv", "gather"},
	{"scatterv", "scatter"},
}

// register adds an algorithm; fn must be of coll's algorithm function type
// (e.g. bcastAlg(bcastBinomial)). Called from init functions only.
func register(coll, name, doc string, fn any) {
	var ok bool
	switch coll {
	case "barrier":
		_, ok = fn.(barrierAlg)
	case "bcast":
		_, ok = fn.(bcastAlg)
	case "reduce":
		_, ok = fn.(reduceAlg)
	case "allreduce":
		_, ok = fn.(allreduceAlg)
	case "gather":
		_, ok = fn.(gatherAlg)
	case "scatter":
		_, ok = fn.(scatterAlg)
	case "allgather":
		_, ok = fn.(allgatherAlg)
	case "alltoall":
		_, ok = fn.(alltoallAlg)
	case "reduce_scatter":
		_, ok = fn.(reduceScatterAlg)
	case "scan", "exscan":
		_, ok = fn.(scanAlg)
	default:
		panic(fmt.Sprintf("mpi: register: unknown collective %q", coll))
	}
	if !ok {
		panic(fmt.Sprintf("mpi: register %s/%s: wrong function type %T", coll, name, fn))
	}
	if name == "" || name == "auto" {
		panic(fmt.Sprintf("mpi: register %s: reserved algorithm name %q", coll, name))
	}
	i := sort.Search(len(registry), func(i int) bool {
		e := registry[i]
		return e.Coll > coll || e.Coll == coll && e.Name >= name
	})
	if i < len(registry) && registry[i].Coll == coll && registry[i].Name == name {
		panic(fmt.Sprintf("mpi: algorithm %s/%s registered twice", coll, name))
	}
	registry = append(registry, algEntry{})
	copy(registry[i+1:], registry[i:])
	registry[i] = algEntry{Algorithm{Coll: coll, Name: name, Doc: doc}, fn}
}

// Algorithms lists every built-in algorithm, sorted by collective then name.
func Algorithms() []Algorithm {
	out := make([]Algorithm, len(registry))
	for i, e := range registry {
		out[i] = e.Algorithm
		out[i].Params = append([]ParamSpec(nil), e.Params...)
	}
	return out
}

// collectives lists the collectives that have algorithms, sorted.
func collectives() []string {
	var cs []string
	for _, e := range registry {
		if len(cs) == 0 || cs[len(cs)-1] != e.Coll {
			cs = append(cs, e.Coll)
		}
	}
	return cs
}

func lookup(coll, name string) any {
	if e := lookupEntry(coll, name); e != nil {
		return e.fn
	}
	return nil
}

// lookupEntry is the built-in algorithm coll/name, or nil.
func lookupEntry(coll, name string) *algEntry {
	i := sort.Search(len(registry), func(i int) bool {
		e := registry[i]
		return e.Coll > coll || e.Coll == coll && e.Name >= name
	})
	if i < len(registry) && registry[i].Coll == coll && registry[i].Name == name {
		return &registry[i]
	}
	return nil
}

func canonColl(coll string) string {
	for _, a := range collAliases {
		if a[0] == coll {
			return a[1]
		}
	}
	return coll
}

// builtinNames lists the built-in algorithms of collective coll (canonical
// name), sorted; nil for an unknown collective.
func builtinNames(coll string) []string {
	var names []string
	for _, e := range registry {
		if e.Coll == coll {
			names = append(names, e.Name)
		}
	}
	return names
}

func unknownCollective(coll string) error {
	return fmt.Errorf("unknown collective %q (valid: %s)", coll, strings.Join(collectives(), ", "))
}

// SetAlgorithm chooses the algorithm of collective coll for this run, with
// parameters ps; "auto" restores the automatic choice. The v-variants
// (gatherv, scatterv, allgatherv, alltoallv) name their collective. Call it
// before the run starts.
//
// A built-in algorithm takes only the parameters it declares, each a whole
// number in its range; anything else is an error. A name that is not built
// in is an external algorithm that the program will register
// (RegisterExternal, mpi.coll.register in Lua) once it runs: it is accepted
// here, with any parameters (the algorithm checks them), and looked up at
// the first call of the collective on each rank, which fails with an
// *UnregisteredError if that rank has none. An unknown collective is an
// error at once.
func (w *World) SetAlgorithm(coll, alg string, ps ...Param) error {
	if err := CheckAlgorithm(coll, alg, ps); err != nil {
		return err
	}
	coll = canonColl(coll)
	if w.algs == nil {
		w.algs = map[string]string{}
		w.params = map[string]Params{}
	}
	if alg == "auto" {
		delete(w.algs, coll)
		delete(w.params, coll)
	} else {
		w.algs[coll] = alg
		w.params[coll] = ps
	}
	return nil
}

// CheckAlgorithm reports what SetAlgorithm would refuse of a choice of alg
// with parameters ps for collective coll, without a World.
func CheckAlgorithm(coll, alg string, ps Params) error {
	coll = canonColl(coll)
	if builtinNames(coll) == nil {
		return unknownCollective(coll)
	}
	if alg == "" {
		return fmt.Errorf("no algorithm named for %s (want %s=ALG; '--coll help' lists them)", coll, coll)
	}
	if alg == "auto" && len(ps) > 0 {
		return fmt.Errorf("%s=auto takes no parameters (got %s)", coll, ps[0].Name)
	}
	if e := lookupEntry(coll, alg); e != nil {
		return checkParams(coll, alg, e.Params, ps)
	}
	return nil
}

// Algorithm is the algorithm chosen for collective coll in this run, or
// "auto", with its parameters if any ("torus:routes=2").
func (w *World) Algorithm(coll string) string {
	coll = canonColl(coll)
	if a := w.algs[coll]; a != "" {
		return withParams(a, w.params[coll])
	}
	return "auto"
}

// withParams is alg, followed by its parameters if any: "torus:routes=2".
func withParams(alg string, ps Params) string {
	if len(ps) == 0 {
		return alg
	}
	return alg + ":" + ps.String()
}

// chosen returns the algorithm selected for coll on c's world: a built-in
// one, an adapter that runs the external algorithm of that name (see
// coll_lua.go), or nil for the automatic choice.
func (c *Comm) chosen(coll string) any {
	name := c.r.w.algs[coll]
	if name == "" {
		return nil
	}
	if f := lookup(coll, name); f != nil {
		return f
	}
	return externalAdapter(coll, name)
}

func (c *Comm) checkRoot(root int) error {
	if err := c.checkPeer("root", root, false); err != nil {
		return err
	}
	if root < 0 || root >= c.size { // checkPeer lets ProcNull through
		return &RankError{What: "root", Rank: root, Size: c.size, Comm: c.Name}
	}
	return nil
}

// Auto choices (see the table at the top of the file).

func autoBarrier(c *Comm) error {
	switch {
	case giApplies(c):
		c.noteRan("gi")
		return barrierGI(c)
	case treeApplies(c):
		c.noteRan("tree")
		return barrierTree(c)
	}
	c.noteRan("dissemination")
	return barrierDissemination(c)
}

// autoReduce uses the collective network's ALU where it applies. The choice
// rests on what every rank knows alike (the communicator and the operator);
// a rank whose value the ALU cannot take declines inside reduceTree, which
// then falls back on every rank together, or fails if the ranks disagree.
func autoReduce(c *Comm, v Value, op Op, root int) (Value, error) {
	if treeApplies(c) && treeOpWhyNot(op) == "" {
		c.noteRan("tree")
		return reduceTree(c, v, op, root)
	}
	c.noteRan("binomial")
	return reduceBinomial(c, v, op, root)
}

// bcastAuto is the collective network's broadcast where it applies, else
// MPICH's choice (bcastMPICH).
func bcastAuto(c *Comm, v Value, root int) (Value, error) {
	if treeApplies(c) {
		c.noteRan("tree")
		return bcastTree(c, v, root)
	}
	return bcastChoose(c, v, root)
}

// bcastMPICH is --coll bcast=mpich: MPICH's default over point-to-point,
// as the [ML] paper's baseline ran it. The call records the algorithm that
// MPICH's rule picked, as auto's do.
func bcastMPICH(c *Comm, v Value, root int) (Value, error) {
	c.r.rec().note.ran = ""
	return bcastChoose(c, v, root)
}

// bcastChoose is MPICH's rule (see the table at the top of the file). The
// root chooses by size; the others learn the choice from the first message,
// which every algorithm receives from the binomial-tree parent with tag
// tagBcast.
func bcastChoose(c *Comm, v Value, root int) (Value, error) {
	n := c.Size()
	if c.Rank() == root {
		switch {
		case n < 8 || v.Size < 12<<10:
		case isPow2(n) && v.Size < bcastLongMsg:
			c.noteRan("scatter_recursive_doubling")
			return bcastScatterRDB(c, v, root)
		case v.Size >= 96*n:
			c.noteRan("scatter_allgather")
			return bcastScatterAllgather(c, v, root)
		}
		c.noteRan("binomial")
		return bcastBinomial(c, v, root)
	}
	rel, parent, mask := binomialPos(c.Rank(), root, n)
	m := c.CRecv(parent, tagBcast)
	if p, ok := m.Data.(*bcastPieces); ok {
		if p.rdb {
			c.noteRan("scatter_recursive_doubling")
		} else {
			c.noteRan("scatter_allgather")
		}
		return bcastScatterAllgatherRest(c, p, root, rel, mask)
	}
	c.noteRan("binomial")
	bcastBinomialForward(c, m, root, rel, mask)
	return m, nil
}

func autoAllreduce(c *Comm, v Value, op Op) (Value, error) {
	if treeApplies(c) && treeOpWhyNot(op) == "" {
		c.noteRan("tree")
		return allreduceTree(c, v, op)
	}
	return p2pAllreduce(c, v, op)
}

// p2pAllreduce is the automatic choice among point-to-point algorithms.
func p2pAllreduce(c *Comm, v Value, op Op) (Value, error) {
	n := c.Size()
	if ringSplittable(v, op, n) && v.Size >= 16<<10 && v.Size >= 64*n {
		c.noteRan("ring")
		return allreduceRing(c, v, op)
	}
	c.noteRan("recursive_doubling")
	return allreduceRecursiveDoubling(c, v, op)
}

func autoAllgather(c *Comm, v Value) ([]Value, error) {
	if isPow2(c.Size()) {
		c.noteRan("recursive_doubling")
		return allgatherRecursiveDoubling(c, v)
	}
	c.noteRan("bruck")
	return allgatherBruck(c, v)
}

// Dispatch: the algorithm chosen for the run, else the bcs runtime's own
// collectives under --runtime bcs (coll_bcs.go), else the automatic one.

func (c *Comm) barrierAlg() barrierAlg {
	if f := c.chosen("barrier"); f != nil {
		return f.(barrierAlg)
	}
	if c.r.w.bcs != nil {
		return bcsBarrier
	}
	return autoBarrier
}

func (c *Comm) bcastAlg() bcastAlg {
	if f := c.chosen("bcast"); f != nil {
		return f.(bcastAlg)
	}
	if c.r.w.bcs != nil {
		return bcsBcast
	}
	return bcastAuto
}

func (c *Comm) reduceAlg() reduceAlg {
	if f := c.chosen("reduce"); f != nil {
		return f.(reduceAlg)
	}
	if c.r.w.bcs != nil {
		return bcsReduce
	}
	return autoReduce
}

func (c *Comm) allreduceAlg() allreduceAlg {
	if f := c.chosen("allreduce"); f != nil {
		return f.(allreduceAlg)
	}
	if c.r.w.bcs != nil {
		return bcsAllreduce
	}
	return autoAllreduce
}

func (c *Comm) gatherAlg() gatherAlg {
	if f := c.chosen("gather"); f != nil {
		return f.(gatherAlg)
	}
	if c.r.w.bcs != nil {
		return bcsGather
	}
	return gatherBinomial
}

func (c *Comm) scatterAlg() scatterAlg {
	if f := c.chosen("scatter"); f != nil {
		return f.(scatterAlg)
	}
	if c.r.w.bcs != nil {
		return bcsScatter
	}
	return scatterBinomial
}

func (c *Comm) allgatherAlg() allgatherAlg {
	if f := c.chosen("allgather"); f != nil {
		return f.(allgatherAlg)
	}
	if c.r.w.bcs != nil {
		return bcsAllgather
	}
	return autoAllgather
}

func (c *Comm) alltoallAlg() alltoallAlg {
	if f := c.chosen("alltoall"); f != nil {
		return f.(alltoallAlg)
	}
	if c.r.w.bcs != nil {
		return bcsAlltoall
	}
	return alltoallPairwise
}

func (c *Comm) reduceScatterAlg() reduceScatterAlg {
	if f := c.chosen("reduce_scatter"); f != nil {
		return f.(reduceScatterAlg)
	}
	if c.r.w.bcs != nil {
		return bcsReduceScatter
	}
	return reduceScatterPairwise
}

func (c *Comm) scanAlg(coll string, auto scanAlg) scanAlg {
	if f := c.chosen(coll); f != nil {
		return f.(scanAlg)
	}
	if c.r.w.bcs != nil {
		if coll == "exscan" {
			return bcsExscan
		}
		return bcsScan
	}
	return auto
}

// Exported entry points.

// noteAlg starts noting what a call of coll on c runs (coll_record.go);
// the function it returns records it. dflt is the algorithm that runs when the
// one in force notes none: the automatic choice where it is fixed
// (gather: binomial), or the default a hardware algorithm falls back on.
func (c *Comm) noteAlg(coll, dflt string) func() {
	r := c.r.rec()
	saved := r.note // a collective inside another (dup's barrier)
	chosen := c.inForce(coll)
	r.note = algNote{}
	if chosen != "auto" {
		r.note.ran = chosen
	}
	return func() {
		if r.note.ran == "" {
			r.note.ran = dflt
		}
		c.record(c.callName(coll), chosen)
		r.ranColl, r.ranAlg = c.callName(coll), r.note.ran
		r.note = saved
	}
}

// AlgorithmInForce is the algorithm in force for collective coll on c: the
// one chosen for the run, "bcs" for the bcs runtime's own collectives, else
// "auto".
func (c *Comm) AlgorithmInForce(coll string) string { return c.inForce(canonColl(coll)) }

func (c *Comm) inForce(coll string) string {
	if name := c.r.w.algs[coll]; name != "" {
		return withParams(name, c.r.w.params[coll])
	}
	if c.r.w.bcs != nil {
		return "bcs"
	}
	return "auto"
}

// Barrier blocks until every rank of c has entered it. Only an external
// algorithm (coll_lua.go) can fail.
func Barrier(c *Comm) (err error) {
	defer c.Enter("barrier")()
	defer catch(&err)
	c.begin("barrier", -1, nil, -1)
	defer c.noteAlg("barrier", "dissemination")()
	return c.barrierAlg()(c)
}

// Bcast returns root's v on every rank (v is only read at root).
func Bcast(c *Comm, v Value, root int) (_ Value, err error) {
	defer c.Enter("bcast")()
	defer catch(&err)
	defer c.noteAlg("bcast", "binomial")()
	if err := c.checkRoot(root); err != nil {
		return Value{}, err
	}
	c.begin("bcast", root, nil, -1)
	return c.bcastAlg()(c, v, root)
}

// Reduce combines every rank's v with op, in rank order, and returns the result
// at root (Value{} elsewhere).
func Reduce(c *Comm, v Value, op Op, root int) (_ Value, err error) {
	defer c.Enter("reduce")()
	defer catch(&err)
	defer c.noteAlg("reduce", "binomial")()
	if err := c.checkRoot(root); err != nil {
		return Value{}, err
	}
	c.begin("reduce", root, op, opSize(v, op))
	return c.reduceAlg()(c, v, op, root)
}

// Allreduce combines every rank's v with op, in rank order, on every rank.
func Allreduce(c *Comm, v Value, op Op) (_ Value, err error) {
	defer c.Enter("allreduce")()
	defer catch(&err)
	c.begin("allreduce", -1, op, opSize(v, op))
	defer c.noteAlg("allreduce", "recursive_doubling")()
	return c.allreduceAlg()(c, v, op)
}

// Gather collects every rank's v at root, indexed by rank (nil elsewhere).
// Numbers, arrays of numbers and phantoms are buffers: every rank must pass
// one of the same size, as MPI_Gather's counts must agree (Gatherv lifts it).
func Gather(c *Comm, v Value, root int) ([]Value, error) {
	return gather(c, v, root, bufSize(v))
}

// Gatherv is Gather with values of any size on each rank.
func Gatherv(c *Comm, v Value, root int) ([]Value, error) {
	return gather(c, v, root, -1)
}

func gather(c *Comm, v Value, root, size int) (_ []Value, err error) {
	defer c.Enter("gather")()
	defer catch(&err)
	defer c.noteAlg("gather", "binomial")()
	if err := c.checkRoot(root); err != nil {
		return nil, err
	}
	c.begin("gather", root, nil, size)
	return c.gatherAlg()(c, v, root)
}

// Scatter sends vs[i] from root to rank i (vs is only read at root).
func Scatter(c *Comm, vs []Value, root int) (_ Value, err error) {
	defer c.Enter("scatter")()
	defer catch(&err)
	defer c.noteAlg("scatter", "binomial")()
	if err := c.checkRoot(root); err != nil {
		return Value{}, err
	}
	c.begin("scatter", root, nil, -1)
	if c.Rank() == root && len(vs) != c.Size() {
		return Value{}, fmt.Errorf("mpi.scatter: root has %d values for %d ranks of %s", len(vs), c.Size(), c.Name)
	}
	return c.scatterAlg()(c, vs, root)
}

// Allgather returns every rank's v on every rank, indexed by rank. The
// built-in algorithms cannot fail; if the run selected an external algorithm
// that does, Allgather panics with its error (AllgatherErr returns it).
func Allgather(c *Comm, v Value) []Value {
	vs, err := AllgatherErr(c, v)
	if err != nil {
		panic(err)
	}
	return vs
}

// AllgatherErr is Allgather with the error of a failing external algorithm
// or of ranks that disagree. As for Gather, buffers must be of one size on
// every rank (AllgathervErr lifts it).
func AllgatherErr(c *Comm, v Value) ([]Value, error) {
	return allgather(c, v, bufSize(v))
}

// AllgathervErr is AllgatherErr with values of any size on each rank.
func AllgathervErr(c *Comm, v Value) ([]Value, error) {
	return allgather(c, v, -1)
}

func allgather(c *Comm, v Value, size int) (_ []Value, err error) {
	defer c.Enter("allgather")()
	defer catch(&err)
	c.begin("allgather", -1, nil, size)
	defer c.noteAlg("allgather", "bruck")()
	if name, ok := c.externalChoice("allgather"); ok {
		call := ExternalCall{Coll: "allgather", Alg: name, Value: v, Root: -1}
		err := c.runExternal(&call)
		return call.Results, err
	}
	return c.allgatherAlg()(c, v)
}

// Alltoall sends vs[j] to rank j and returns the values received, indexed by
// source rank.
func Alltoall(c *Comm, vs []Value) (_ []Value, err error) {
	defer c.Enter("alltoall")()
	defer catch(&err)
	c.begin("alltoall", -1, nil, -1)
	defer c.noteAlg("alltoall", "pairwise")()
	if len(vs) != c.Size() {
		return nil, fmt.Errorf("mpi.alltoall: %d values for %d ranks of %s", len(vs), c.Size(), c.Name)
	}
	return c.alltoallAlg()(c, vs)
}

// ReduceScatter combines, in rank order, every rank's vs[j] into rank j's result.
func ReduceScatter(c *Comm, vs []Value, op Op) (_ Value, err error) {
	defer c.Enter("reduce_scatter")()
	defer catch(&err)
	c.begin("reduce_scatter", -1, op, -1)
	defer c.noteAlg("reduce_scatter", "pairwise")()
	if len(vs) != c.Size() {
		return Value{}, fmt.Errorf("mpi.reduce_scatter: %d values for %d ranks of %s", len(vs), c.Size(), c.Name)
	}
	return c.reduceScatterAlg()(c, vs, op)
}

// Scan returns v0 op v1 op ... op v(rank): the inclusive prefix in rank order.
func Scan(c *Comm, v Value, op Op) (_ Value, err error) {
	defer c.Enter("scan")()
	defer catch(&err)
	c.begin("scan", -1, op, opSize(v, op))
	defer c.noteAlg("scan", "linear")()
	return c.scanAlg("scan", scanLinear)(c, v, op)
}

// Exscan returns v0 op ... op v(rank-1); rank 0 gets Value{}.
func Exscan(c *Comm, v Value, op Op) (_ Value, err error) {
	defer c.Enter("exscan")()
	defer catch(&err)
	c.begin("exscan", -1, op, opSize(v, op))
	defer c.noteAlg("exscan", "linear")()
	return c.scanAlg("exscan", exscanLinear)(c, v, op)
}

// Helpers shared by the algorithms.

// Tags of the collective context: one range per algorithm, so that a mistake
// that let ranks disagree on an algorithm shows as a deadlock naming the
// collective rather than as a silent mismatch.
const (
	tagBarrierDissemination = 100
	tagBarrierBinomial      = 110 // +0 gather, +1 release
	tagBcast                = 200 // first step of every bcast: from the binomial parent
	tagBcastRing            = 201
	tagReduceBinomial       = 300 // +0 tree, +1 to root
	tagAllreduceRD          = 400 // +0 fold, +1 exchange, +2 unfold
	tagAllreduceRing        = 410 // +0 reduce-scatter, +1 allgather
	tagGatherBinomial       = 500
	tagGatherLinear         = 510
	tagScatterBinomial      = 600
	tagScatterLinear        = 610
	tagAllgatherRing        = 700
	tagAllgatherRD          = 710
	tagAllgatherBruck       = 720
	tagAlltoallPairwise     = 800
	tagAlltoallPostall      = 810
	tagReduceScatter        = 900
	tagScan                 = 1000
	tagExscan               = 1010
)

// pack makes one message of several values: its size is the sum of theirs.
// The slice is clipped so that neither side's appends can reach the other's.
func pack(vs []Value) Value {
	s := 0
	for _, v := range vs {
		s += v.Size
	}
	return Value{Data: vs[:len(vs):len(vs)], Size: s}
}

// unpack returns the values of a message made by pack.
func unpack(v Value) []Value { return v.Data.([]Value) }

// combine returns a op b (a from lower ranks) and charges the CPU for it.
func combine(c *Comm, op Op, a, b Value) (Value, error) {
	c.Combine(max(Elements(a), Elements(b)))
	return op.Combine(a, b)
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// binomialPos places rank me in the binomial tree of n ranks rooted at root
// (MPICH's): rel is its rank relative to root, parent its parent (-1 at the
// root) and mask the bit at which it receives (the lowest set bit of rel; the
// smallest power of two >= n at the root). Its children are rel+m for m =
// mask/2, mask/4, ..., 1 with rel+m < n; child rel+m's subtree covers the
// relative ranks [rel+m, min(rel+2m, n)).
func binomialPos(me, root, n int) (rel, parent, mask int) {
	rel = (me - root + n) % n
	mask = 1
	for mask < n {
		if rel&mask != 0 {
			return rel, (rel - mask + root) % n, mask
		}
		mask <<= 1
	}
	return rel, -1, mask
}
