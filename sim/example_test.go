package sim_test

import (
	"fmt"

	"github.com/swarmsim/swarmsim/sim"
)

// Two processes take turns: each acts, then waits two seconds, and the
// second starts a second after the first.
func Example() {
	env := sim.New(sim.Limits{})
	player := func(start sim.Time) func(*sim.Proc) error {
		return func(p *sim.Proc) error {
			if err := p.Wait(start); err != nil {
				return err
			}
			for range 3 {
				fmt.Println(p.Now(), p.Name())
				if err := p.Wait(2 * sim.Second); err != nil {
					return err
				}
			}
			return nil
		}
	}
	env.Process("ping", player(0))
	env.Process("pong", player(sim.Second))
	if err := env.Run(); err != nil {
		fmt.Println(err)
	}
	fmt.Println("done at", env.Now())
	// Output:
	// 0s ping
	// 1s pong
	// 2s ping
	// 3s pong
	// 4s ping
	// 5s pong
	// done at 7s
}

// A client waits for a reply or a timeout, whichever comes first.
func ExampleEnv_AnyOf() {
	env := sim.New(sim.Limits{})
	ask := func(name string, patience sim.Time) {
		env.Process(name, func(p *sim.Proc) error {
			reply := env.NewEvent("reply")
			// The server answers after 3s.
			if err := env.Call(3*sim.Second, func() { _ = reply.Succeed("pong") }); err != nil {
				return err
			}
			timeout, err := env.Timeout(patience, nil)
			if err != nil {
				return err
			}
			if _, err := p.Await(env.AnyOf(reply, timeout)); err != nil {
				return err
			}
			if reply.Processed() {
				fmt.Printf("%s: %v at %v\n", name, reply.Value(), p.Now())
			} else {
				fmt.Printf("%s: timed out at %v\n", name, p.Now())
			}
			return nil
		})
	}
	ask("patient", 5*sim.Second)
	ask("hasty", 2*sim.Second)
	if err := env.Run(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// hasty: timed out at 2s
	// patient: pong at 3s
}

// A deadline stops every worker at once, whatever each is doing.
func ExampleProc_Interrupt() {
	env := sim.New(sim.Limits{})
	var workers []*sim.Proc
	for i, job := range []sim.Time{3 * sim.Second, 4 * sim.Second, 6 * sim.Second} {
		name := fmt.Sprint("worker", i)
		workers = append(workers, env.Process(name, func(p *sim.Proc) error {
			done := 0
			for {
				if err := p.Wait(job); err != nil {
					fmt.Printf("%s stopped at %v, %d jobs done: %v\n", name, p.Now(), done, err)
					return err // an *Interrupt: an orderly stop
				}
				done++
			}
		}))
	}
	env.Process("deadline", func(p *sim.Proc) error {
		if err := p.Wait(10 * sim.Second); err != nil {
			return err
		}
		for _, w := range workers {
			if _, err := w.Interrupt("deadline"); err != nil {
				return err
			}
		}
		return nil
	})
	if err := env.Run(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// worker0 stopped at 10s, 3 jobs done: sim: interrupted: deadline
	// worker1 stopped at 10s, 2 jobs done: sim: interrupted: deadline
	// worker2 stopped at 10s, 1 jobs done: sim: interrupted: deadline
}

// Customers leave the queue if they have not been served within their
// patience: Request with AnyOf and a timeout, and Cancel on giving up.
func ExampleResource_Request() {
	env := sim.New(sim.Limits{})
	clerk, err := sim.NewResource(env, 1, sim.FIFO)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, patience := range []sim.Time{sim.Hour, 5 * sim.Minute, 20 * sim.Minute} {
		name := fmt.Sprint("customer", i)
		env.Process(name, func(p *sim.Proc) error {
			timeout, err := env.Timeout(patience, nil)
			if err != nil {
				return err
			}
			req := clerk.Request(0)
			if _, err := p.Await(env.AnyOf(req, timeout)); err != nil {
				return err
			}
			if !req.Processed() {
				fmt.Printf("%v %s leaves\n", p.Now(), name)
				return clerk.Cancel(req)
			}
			fmt.Printf("%v %s is served\n", p.Now(), name)
			if err := p.Wait(10 * sim.Minute); err != nil {
				return err
			}
			return clerk.Release()
		})
	}
	if err := env.Run(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 0s customer0 is served
	// 5m0s customer1 leaves
	// 10m0s customer2 is served
}

// A store is a mailbox between processes; a bounded one makes the producer
// wait for the consumer.
func ExampleStore() {
	env := sim.New(sim.Limits{})
	box := sim.NewStore[string](env, 1)
	env.Process("producer", func(p *sim.Proc) error {
		for _, msg := range []string{"hello", "world"} {
			if err := box.Put(p, msg); err != nil {
				return err
			}
			fmt.Printf("%v sent %s\n", p.Now(), msg)
		}
		return nil
	})
	env.Process("consumer", func(p *sim.Proc) error {
		for range 2 {
			if err := p.Wait(sim.Second); err != nil {
				return err
			}
			msg, err := box.Get(p)
			if err != nil {
				return err
			}
			fmt.Printf("%v got %s\n", p.Now(), msg)
		}
		return nil
	})
	if err := env.Run(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 0s sent hello
	// 1s got hello
	// 1s sent world
	// 2s got world
}

// An M/M/1 queue: Poisson arrivals at rate λ = 0.5/s, one server with
// exponential service at rate μ = 1/s. The mean wait in queue should be
// ρ/(μ-λ) = 1s, where ρ = λ/μ.
func Example_mm1() {
	const (
		lambda, mu = 0.5, 1.0
		customers  = 20_000
	)
	env := sim.New(sim.Limits{})
	server, err := sim.NewResource(env, 1, sim.FIFO)
	if err != nil {
		fmt.Println(err)
		return
	}
	streams := sim.NewStreams(2024)
	arrivals, service := streams.New("arrivals", 0), streams.New("service", 0)
	draw := func(rate float64, r interface{ ExpFloat64() float64 }) sim.Time {
		return sim.Time(r.ExpFloat64() / rate * float64(sim.Second))
	}

	var totalWait sim.Time
	env.Process("source", func(p *sim.Proc) error {
		for range customers {
			hold := draw(mu, service)
			env.Process("customer", func(c *sim.Proc) error {
				arrived := c.Now()
				if err := server.Acquire(c, 0); err != nil {
					return err
				}
				totalWait += c.Now() - arrived
				if err := c.Wait(hold); err != nil {
					return err
				}
				return server.Release()
			})
			if err := p.Wait(draw(lambda, arrivals)); err != nil {
				return err
			}
		}
		return nil
	})
	if err := env.Run(); err != nil {
		fmt.Println(err)
		return
	}
	rho := lambda / mu
	fmt.Printf("utilisation %.1f (theory %.1f)\n", server.Stats().Utilization, rho)
	fmt.Printf("mean wait %.2gs (theory %.2gs)\n", totalWait.Seconds()/customers, rho/(mu-lambda))
	// Output:
	// utilisation 0.5 (theory 0.5)
	// mean wait 1s (theory 1s)
}

// Running until an event, as SimPy's env.run(until=proc) does, is a loop
// over Step. It ends when the event is processed; if the event fails and
// nothing awaits it, Step returns the failure, and if nothing is left to
// make it happen, ErrNoEvents. A process returns only an error, so its
// Done event's value is nil: a result travels in a variable.
func ExampleEnv_Step() {
	env := sim.New(sim.Limits{})
	defer env.Close()
	var built int
	builder := env.Process("builder", func(p *sim.Proc) error {
		for range 3 {
			if err := p.Wait(2 * sim.Second); err != nil {
				return err
			}
			built++
		}
		return nil
	})
	env.Process("clock", func(p *sim.Proc) error { // never ends: Run would not return
		for {
			if err := p.Wait(sim.Second); err != nil {
				return err
			}
		}
	})
	done := builder.Done()
	for !done.Processed() {
		if err := env.Step(); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(built, "built by", env.Now(), "value", done.Value(), "error", done.Err())
	// Output: 3 built by 6s value <nil> error <nil>
}
