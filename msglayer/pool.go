package msglayer

import "sync"

// A pool is a view's free objects of one kind that are made in one
// partition and freed in another: a train (and a stream packet's
// streamInfo) is made where its batch is written and freed where it
// arrives, a transit and a link release likewise cross from the sender's
// partition to another. Without a way back, the
// partitions that send allocate every one and those that receive fill their
// pools and drop the rest (10 broadcasts of 1 MiB on 2,048 ranks, four
// blocks: 176 MB of trains allocated, 12% of the host time). So a view whose
// pool is full hands the whole of it to the layer's depot, and a view whose
// pool is empty takes a full one from there: one lock per poolBatch objects.
//
// Reuse never shows in results: an object is made whole again (zeroed, and
// its fixed fields set) before it is put back.
type pool[T any] struct {
	free []*T
	dep  *depot[T] // shared by the views of a layer in partitions; nil in one
}

// poolBatch is the most a view keeps free of a kind, and what it hands to
// the depot at once.
const poolBatch = maxTransitPool

// depotMax bounds the full batches a depot keeps; beyond them freed objects
// are left to the collector.
const depotMax = 16

// A depot holds full batches of free objects for the views of a layer in
// partitions, which run on several threads.
type depot[T any] struct {
	mu    sync.Mutex
	full  [][]*T
	empty [][]*T // batches' slices, given back empty, for reuse
}

// get takes a free object, or returns nil when there is none.
func (p *pool[T]) get() *T {
	n := len(p.free)
	if n == 0 {
		if p.dep == nil || !p.refill() {
			return nil
		}
		n = len(p.free)
	}
	x := p.free[n-1]
	p.free = p.free[:n-1] // (as the views' other pools: the slot is overwritten by the next put)
	return x
}

// refill swaps p's empty slice for a full batch of the depot's, if it has one.
func (p *pool[T]) refill() bool {
	d := p.dep
	d.mu.Lock()
	defer d.mu.Unlock()
	k := len(d.full)
	if k == 0 {
		return false
	}
	if cap(p.free) > 0 {
		d.empty = append(d.empty, p.free[:0])
	}
	p.free = d.full[k-1]
	d.full[k-1] = nil
	d.full = d.full[:k-1]
	return true
}

// put frees x, which the caller has made whole again.
func (p *pool[T]) put(x *T) {
	if len(p.free) >= poolBatch {
		if p.dep == nil || !p.spill() {
			return
		}
	}
	p.free = append(p.free, x)
}

// spill hands p's full slice to the depot and takes an empty one; false if
// the depot is full too.
func (p *pool[T]) spill() bool {
	d := p.dep
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.full) >= depotMax {
		return false
	}
	d.full = append(d.full, p.free)
	if k := len(d.empty); k > 0 {
		p.free = d.empty[k-1]
		d.empty[k-1] = nil
		d.empty = d.empty[:k-1]
	} else {
		p.free = make([]*T, 0, poolBatch)
	}
	return true
}

// share gives p a depot, for the views of a layer split in partitions; each
// view's pool is then share'd from the first's.
func (p *pool[T]) share() {
	if p.dep == nil {
		p.dep = &depot[T]{}
	}
}
