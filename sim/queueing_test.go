package sim_test

// Validation against queueing theory: M/M/1 and M/M/c waiting times against
// their analytic values, and Little's law. Each check's tolerance is the
// run's own 99% confidence interval (batch means), and the interval must
// also be narrower than ±5% of the value, so that a broken engine cannot
// pass through a wide interval.

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/swarmsim/swarmsim/internal/race"
	"github.com/swarmsim/swarmsim/sim"
)

const (
	queueCILevel = 0.99
	queueBatches = 30
)

// queueMaxRelHalf is the largest CI half-width allowed, relative to the
// value. Under the race detector, where creating a process costs ~50×
// more, the runs are 40 times shorter and the bound is wider: those runs
// look for data races, the full runs check the numbers.
var queueMaxRelHalf = 0.05

// queueModel is an M/M/c queue: Poisson arrivals at rate lambda, c servers
// with exponential service at rate mu each (rates per second).
type queueModel struct {
	name      string
	lambda    float64
	mu        float64
	servers   int
	warmup    int // customers discarded before the batches
	batchSize int // customers per batch
	seed      uint64
}

func (m queueModel) customers() int { return m.warmup + queueBatches*m.batchSize }

// erlangC returns the probability that an arriving customer waits in an
// M/M/c queue with offered load a = λ/μ.
func erlangC(c int, a float64) float64 {
	rho := a / float64(c)
	sum, term := 0.0, 1.0 // term = a^k/k!
	for k := range c {
		sum += term
		term *= a / float64(k+1)
	}
	top := term / (1 - rho) // a^c/c! · 1/(1-ρ)
	return top / (sum + top)
}

// analyticWq returns the mean waiting time in queue, in seconds.
func (m queueModel) analyticWq() float64 {
	if m.servers == 1 {
		rho := m.lambda / m.mu
		return rho / (m.mu - m.lambda)
	}
	return erlangC(m.servers, m.lambda/m.mu) / (float64(m.servers)*m.mu - m.lambda)
}

// queueResult holds what one run measured, over the customers after the
// warm-up.
type queueResult struct {
	waits    []float64 // time in queue per customer, in arrival order (s)
	sojourns []float64 // time in system per customer (s)
	// Per batch of arrivals: the time-average number in system, from the
	// resource's statistics, and the batch's length.
	batchL, batchT []float64
	arrivalRate    float64 // measured λ over the batches (1/s)
}

func expHold(r interface{ ExpFloat64() float64 }, rate float64) sim.Time {
	return sim.Time(r.ExpFloat64() / rate * float64(sim.Second))
}

// simulate runs the model: a source process creates one process per
// customer, which acquires a server, holds it for its service time and
// releases it.
func (m queueModel) simulate() (queueResult, error) {
	n := m.customers()
	env := sim.New(sim.Limits{MaxEvents: uint64(20 * n)})
	defer env.Close()
	res, err := sim.NewResource(env, m.servers, sim.FIFO)
	if err != nil {
		return queueResult{}, err
	}

	streams := sim.NewStreams(m.seed)
	arrivals := streams.New("arrivals", 0)
	service := streams.New("service", 0)

	waits := make([]float64, n)
	sojourns := make([]float64, n)
	var out queueResult
	var batchStart sim.Time

	env.Process("source", func(p *sim.Proc) error {
		for i := range n {
			if i >= m.warmup && (i-m.warmup)%m.batchSize == 0 {
				// A batch boundary: close the previous batch, open the next.
				if i > m.warmup {
					st := res.Stats()
					out.batchL = append(out.batchL, st.MeanInUse+st.MeanQueueLen)
					out.batchT = append(out.batchT, st.Elapsed.Seconds())
				}
				res.ResetStats()
				if i == m.warmup {
					batchStart = p.Now()
				}
			}
			hold := expHold(service, m.mu)
			env.Process("customer", func(c *sim.Proc) error {
				arrived := c.Now()
				if err := res.Acquire(c, 0); err != nil {
					return err
				}
				waits[i] = (c.Now() - arrived).Seconds()
				if err := c.Wait(hold); err != nil {
					return err
				}
				sojourns[i] = (c.Now() - arrived).Seconds()
				return res.Release()
			})
			if err := p.Wait(expHold(arrivals, m.lambda)); err != nil {
				return err
			}
		}
		// The last batch ends with the arrival after the last customer.
		st := res.Stats()
		out.batchL = append(out.batchL, st.MeanInUse+st.MeanQueueLen)
		out.batchT = append(out.batchT, st.Elapsed.Seconds())
		out.arrivalRate = float64(n-m.warmup) / (p.Now() - batchStart).Seconds()
		return nil
	})
	if err := env.Run(); err != nil {
		return out, err
	}
	if res.InUse() != 0 || res.QueueLen() != 0 || len(out.batchL) != queueBatches {
		return out, fmt.Errorf("%s: ended with %d units in use, %d waiting, %d batches",
			m.name, res.InUse(), res.QueueLen(), len(out.batchL))
	}
	out.waits, out.sojourns = waits[m.warmup:], sojourns[m.warmup:]
	return out, nil
}

// ci returns the mean of the batch means of xs (queueBatches equal batches)
// and the half-width of its confidence interval (Student t).
func batchMeansCI(xs []float64) (mean, half float64) {
	size := len(xs) / queueBatches
	means := make([]float64, queueBatches)
	for b := range means {
		s := 0.0
		for _, x := range xs[b*size : (b+1)*size] {
			s += x
		}
		means[b] = s / float64(size)
	}
	return tConfidence(means)
}

// tConfidence returns the mean of independent observations and the
// half-width of its confidence interval.
func tConfidence(obs []float64) (mean, half float64) {
	n := float64(len(obs))
	for _, x := range obs {
		mean += x
	}
	mean /= n
	ss := 0.0
	for _, x := range obs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-queueCILevel)/2)
	return mean, tq * sd / math.Sqrt(n)
}

func sampleMean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// The models validated. Run lengths are chosen so that each CI half-width
// is below 5% of its value; seeds are fixed, so every run is reproducible.
var (
	mm1Half = queueModel{name: "MM1/rho=0.5", lambda: 0.5, mu: 1, servers: 1, warmup: 2_000, batchSize: 5_000, seed: 1}
	mm1High = queueModel{name: "MM1/rho=0.8", lambda: 0.8, mu: 1, servers: 1, warmup: 10_000, batchSize: 20_000, seed: 2}
	mmc4    = queueModel{name: "MMc/c=4,rho=0.75", lambda: 3, mu: 1, servers: 4, warmup: 5_000, batchSize: 30_000, seed: 3}
)

// Each model runs once per test binary, however many tests look at it.
var queueRuns = map[string]func() (queueResult, error){}

func init() {
	if race.Enabled {
		queueMaxRelHalf = 0.35
		for _, m := range []*queueModel{&mm1Half, &mm1High, &mmc4} {
			m.warmup /= 10
			m.batchSize /= 40
		}
	}
	for _, m := range []queueModel{mm1Half, mm1High, mmc4} {
		queueRuns[m.name] = sync.OnceValues(m.simulate)
	}
}

func runModel(t *testing.T, m queueModel) queueResult {
	t.Helper()
	r, err := queueRuns[m.name]()
	require.NoError(t, err)
	return r
}

func checkWq(t *testing.T, m queueModel) {
	t.Parallel()
	r := runModel(t, m)
	want := m.analyticWq()
	got, half := batchMeansCI(r.waits)
	t.Logf("%s: Wq measured %.4f ± %.4f s (99%% CI, %d customers), analytic %.4f s", m.name, got, half, len(r.waits), want)
	require.Less(t, half, queueMaxRelHalf*want, "CI too wide to be a test")
	require.InDelta(t, want, got, half, "analytic Wq outside the 99%% CI")
}

func TestMM1WaitingTime(t *testing.T) {
	for _, m := range []queueModel{mm1Half, mm1High} {
		t.Run(m.name, func(t *testing.T) { checkWq(t, m) })
	}
}

func TestMMcErlangC(t *testing.T) {
	// The Erlang C formula itself, against a textbook value: c=2, a=1
	// gives P(wait) = 1/3.
	require.InDelta(t, 1.0/3, erlangC(2, 1), 1e-12)
	require.InDelta(t, 0.5, erlangC(1, 0.5), 1e-12) // M/M/1: P(wait) = ρ
	checkWq(t, mmc4)
}

// TestLittleLaw checks L = λW: the time-average number in system (from the
// resource's time-weighted statistics) against the measured arrival rate
// times the mean time in system (measured by the customers).
func TestLittleLaw(t *testing.T) {
	for _, m := range []queueModel{mm1Half, mm1High, mmc4} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			r := runModel(t, m)
			// L over all batches is the time-weighted mean of the batch L's.
			area, total := 0.0, 0.0
			for b, l := range r.batchL {
				area += l * r.batchT[b]
				total += r.batchT[b]
			}
			l := area / total
			_, half := tConfidence(r.batchL)
			w := sampleMean(r.sojourns)
			t.Logf("%s: L %.4f ± %.4f, λW = %.4f × %.4f = %.4f", m.name, l, half, r.arrivalRate, w, r.arrivalRate*w)
			require.Less(t, half, queueMaxRelHalf*l, "CI too wide to be a test")
			require.InDelta(t, l, r.arrivalRate*w, half)
			// Theory too: L = λ(Wq + 1/μ).
			require.InDelta(t, m.lambda*(m.analyticWq()+1/m.mu), l, half)
		})
	}
}
