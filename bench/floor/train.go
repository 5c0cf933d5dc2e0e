package floor

import "math"

// Trainer trains the shared policy for one latency weight after another;
// it holds every array an iteration touches, so that training allocates
// nothing once it is made.
type Trainer struct {
	r     rng
	theta [2][NF]float64 // the weights of work and of delegate
	m, v  [2][NF]float64 // Adam's moments
	t     int            // Adam's steps
	delta [NF]float64

	work   [B][nodes]float64
	total  [B]float64
	ep     episode
	score  [rollouts][NF]float64
	reward [rollouts]float64
	finish [rollouts]float64
	ok     [rollouts]bool
}

// Result is what one latency weight's training did, over the last tenth of
// its iterations as the product's summary has it, and in all.
type Result struct {
	Weight    float64
	Episodes  int // in all
	Decisions int // in all, with a choice or without
	// Finish is the mean finish time in minutes (the limit for an episode
	// that did not finish); Success the fraction of acceptable episodes.
	Finish, Success float64
	// PDelegate is the fraction of the policy's decisions that delegated.
	PDelegate float64
}

// NewTrainer returns a trainer whose draws start from seed.
func NewTrainer(seed uint64) *Trainer {
	return &Trainer{r: rng{s: seed}}
}

// Train learns from zero for latency weight w over the given number of
// iterations, and reports the last tenth of them.
func (t *Trainer) Train(w float64, iterations int) Result {
	t.theta, t.m, t.v, t.t = [2][NF]float64{}, [2][NF]float64{}, [2][NF]float64{}, 0
	res := Result{Weight: w}
	var asked, delegated, okCount, last int
	var finishSum float64
	tenth := iterations - max(1, iterations/10)
	for it := range iterations {
		n, a, d := t.iteration(w)
		res.Episodes += rollouts
		res.Decisions += n
		if it >= tenth {
			last += rollouts
			asked += a
			delegated += d
			for i := range rollouts {
				finishSum += t.finish[i]
				if t.ok[i] {
					okCount++
				}
			}
		}
	}
	res.Finish = finishSum / float64(last) / 60
	res.Success = float64(okCount) / float64(last)
	res.PDelegate = float64(delegated) / float64(max(asked, 1))
	return res
}

// iteration runs B×G rollouts, scores them and takes one Adam step. It
// returns the decisions made, those the policy was asked and those that
// delegated.
func (t *Trainer) iteration(w float64) (decisions, asked, delegated int) {
	// The policy of this iteration, as a logit difference.
	for j := range NF {
		t.delta[j] = t.theta[1][j] - t.theta[0][j]
	}
	// 1. Rollouts: B task instances, G rollouts of each.
	ep := &t.ep
	ep.delta, ep.r = &t.delta, &t.r
	for k := range B {
		var total float64
		for v := range nodes {
			t.work[k][v] = t.r.exp(meanWork)
			total += t.work[k][v]
		}
		ep.work, ep.total, ep.mean = &t.work[k], total, total/nodes
		for g := range G {
			i := k*G + g
			t.score[i] = [NF]float64{}
			ep.score = &t.score[i]
			ep.run()
			decisions += ep.decisions
			asked += ep.asked
			delegated += ep.delegated
			// 2. The reward: R = [acceptable] − w·T/limit.
			t.finish[i], t.ok[i] = ep.finish, ep.ok
			r := 0.0
			if ep.ok {
				r = 1
			}
			t.reward[i] = r - w*ep.finish/limit
		}
	}
	// 3. Advantages, A = R − the group's mean, and 4. the gradient of the
	// loss averaged over every decision: Σ_rollouts A·Σ ∇log π / decisions.
	// The delegate row's is Σ A·score; the work row's its negative.
	var grad [NF]float64
	for k := range B {
		var mean float64
		for g := range G {
			mean += t.reward[k*G+g]
		}
		mean = float64(mean / G) // a product by 1/G: rounded, not fused into the subtraction
		for g := range G {
			i := k*G + g
			adv := (t.reward[i] - mean) / float64(decisions)
			for j := range NF {
				grad[j] += float64(adv * t.score[i][j])
			}
		}
	}
	// Adam, ascending.
	t.t++
	c1 := 1 - math.Pow(beta1, float64(t.t))
	c2 := 1 - math.Pow(beta2, float64(t.t))
	for row, sign := range [2]float64{-1, 1} {
		m, v, th := &t.m[row], &t.v[row], &t.theta[row]
		for j := range NF {
			g := sign * grad[j]
			m[j] = float64(beta1*m[j]) + float64((1-beta1)*g)
			v[j] = float64(beta2*v[j]) + float64((1-beta2)*g*g)
			th[j] += lr * (m[j] / c1) / (math.Sqrt(v[j]/c2) + eps)
		}
	}
	return decisions, asked, delegated
}

// Weights are the latency weights of the rlcr-peer scenario, trained one
// after another.
var Weights = [...]float64{0, 0.25, 0.5, 1}

// Iterations is the scenario's iterations per weight.
const Iterations = 150

// TrainAll trains the scenario's four weights, Iterations each (19,200
// episodes), as `simulate train rlcr-peer --seeds 1` does.
func (t *Trainer) TrainAll(iterations int) [len(Weights)]Result {
	var out [len(Weights)]Result
	for i, w := range Weights {
		out[i] = t.Train(w, iterations)
	}
	return out
}
