//! The compile workers of a set build: the calling thread produces jobs
//! (the expansions, which need the loader, a `&dyn Loader` that need not be
//! `Sync`), a few workers run them, and the results come back in the order
//! the jobs were made, so a build's blobs, variants and errors are the same
//! whatever thread finished first.
//!
//! A worker is a plain thread: [`crate::compile::compile`] already runs
//! naga on a thread of its own with a [`crate::compile::STACK_BYTES`]
//! stack, so the workers need no big stack of their own and only wait on
//! it. With one worker nothing is spawned here: the jobs run on the calling
//! thread as they are made.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::cache::{Cache, Key};
use crate::compile::{CompileOptions, Compiled};
use crate::diag::Diagnostics;
use crate::expand::Expanded;

/// The environment variable that sets how many compile workers a set build
/// uses (a positive integer, at most [`MAX_JOBS`]; `1` builds one variant
/// after another). Unset or unreadable, [`DEFAULT_MAX_JOBS`] bounds the
/// machine's parallelism.
pub const JOBS_ENV: &str = "NCNN_GLSL_JOBS";

/// The most workers by default, whatever the machine has: cargo runs
/// several rustc processes at once, each with its own macro calls, so one
/// build taking every core of a large machine would only crowd the others.
pub const DEFAULT_MAX_JOBS: usize = 8;

/// The most workers [`JOBS_ENV`] may ask for: more threads than this only
/// hold more expansions in memory for no speed.
pub const MAX_JOBS: usize = 64;

/// How many workers a build of `jobs` jobs (at most) uses, from the
/// environment ([`JOBS_ENV`]) and the machine's parallelism.
pub fn workers(jobs: usize) -> usize {
    let available = std::thread::available_parallelism().map_or(1, usize::from);
    let asked = std::env::var(JOBS_ENV).ok();
    workers_for(jobs, available, asked.as_deref())
}

/// The rule of [`workers`]: `asked` (the variable's value) when it is a
/// positive integer, capped at [`MAX_JOBS`], else `available` capped at
/// [`DEFAULT_MAX_JOBS`]; never more than `jobs` (an idle worker is a thread
/// for nothing) and never less than 1.
pub fn workers_for(jobs: usize, available: usize, asked: Option<&str>) -> usize {
    let wanted = match asked.and_then(|s| s.trim().parse::<usize>().ok()) {
        Some(n) if n > 0 => n.min(MAX_JOBS),
        _ => available.min(DEFAULT_MAX_JOBS),
    };
    wanted.min(jobs).max(1)
}

/// A compile function: [`crate::compile::compile`], or in tests a wrapper
/// that counts its calls.
pub(crate) type CompileFn<'a> =
    dyn Fn(&Expanded, &CompileOptions) -> Result<Compiled, Diagnostics> + Sync + 'a;

/// How a set build compiles its distinct texts.
pub(crate) struct Compiler<'a> {
    /// The options of every compile.
    pub options: &'a CompileOptions,
    /// Where compiled texts are looked up first and stored after.
    pub cache: Option<&'a Cache>,
    /// The number of workers; `None`: [`workers`].
    pub workers: Option<usize>,
    /// What compiles a text the cache does not hold.
    pub compile: &'a CompileFn<'a>,
}

impl Compiler<'_> {
    /// The compiled `e`, from the cache where it holds it.
    pub fn compile(&self, e: &Expanded) -> Result<Compiled, Diagnostics> {
        let run = || (self.compile)(e, self.options);
        match self.cache {
            Some(cache) => cache.get_or_compile(&Key::of(e.text(), self.options), run),
            None => run(),
        }
    }
}

/// Runs `produce`, which hands jobs to the function it is given, and runs
/// each job through `work` on `workers` threads. Returns what `produce`
/// returned and the jobs' results in the order the jobs were handed over;
/// an error of `produce` is returned as it is, and the jobs still queued
/// then are dropped unrun.
///
/// At most `workers` jobs wait in the queue and one runs per worker, so
/// the producer never gets more than `2 * workers` jobs ahead of the
/// workers. A panic of `work` is raised again on the calling thread.
pub fn pipeline<J, R, T, E>(
    workers: usize,
    work: impl Fn(J) -> R + Sync,
    produce: impl FnOnce(&mut dyn FnMut(J)) -> Result<T, E>,
) -> Result<(T, Vec<R>), E>
where
    J: Send,
    R: Send,
{
    if workers <= 1 {
        let mut out = Vec::new();
        let t = produce(&mut |job| out.push(work(job)))?;
        return Ok((t, out));
    }
    let work = &work;
    std::thread::scope(|s| {
        let (job_tx, job_rx) = mpsc::sync_channel::<(usize, J)>(workers);
        // Only the workers hold the queue's end: were they all gone, a send
        // fails instead of waiting forever.
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (result_tx, result_rx) = mpsc::channel::<(usize, R)>();
        let stop = Arc::new(AtomicBool::new(false));
        let mut handles = Vec::new();
        for _ in 0..workers {
            let (job_rx, result_tx, stop) = (job_rx.clone(), result_tx.clone(), stop.clone());
            let spawned = std::thread::Builder::new()
                .name("ncnn-glsl-jobs".into())
                .spawn_scoped(s, move || loop {
                    // The lock is held while waiting for a job, not while running one.
                    let next = job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    let Ok((i, job)) = next else { break };
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    if result_tx.send((i, work(job))).is_err() {
                        break;
                    }
                });
            // A worker the system will not give is one fewer.
            if let Ok(h) = spawned {
                handles.push(h);
            }
        }
        drop((job_rx, result_tx));
        let mut made = 0usize;
        let produced = {
            let mut inline = Vec::new();
            let produced = produce(&mut |job| {
                let i = made;
                made += 1;
                // No worker left (none spawned, or all panicked): run it here.
                if let Err(mpsc::SendError((i, job))) = job_tx.send((i, job)) {
                    if handles.is_empty() {
                        inline.push((i, work(job)));
                    }
                }
            });
            if produced.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            drop(job_tx);
            (produced, inline)
        };
        for h in handles {
            if let Err(payload) = h.join() {
                std::panic::resume_unwind(payload);
            }
        }
        let (produced, inline) = produced;
        let t = produced?;
        let mut out: Vec<Option<R>> = (0..made).map(|_| None).collect();
        for (i, r) in result_rx.into_iter().chain(inline) {
            out[i] = Some(r);
        }
        let out = out
            .into_iter()
            .map(|r| r.expect("every job handed over ran: a worker that stopped panicked"))
            .collect();
        Ok((t, out))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_worker_count_follows_the_variable_then_the_machine() {
        // The machine's parallelism, capped.
        assert_eq!(workers_for(1000, 2, None), 2);
        assert_eq!(workers_for(1000, 128, None), DEFAULT_MAX_JOBS);
        // Never more workers than jobs, never none.
        assert_eq!(workers_for(3, 16, None), 3);
        assert_eq!(workers_for(0, 16, None), 1);
        assert_eq!(workers_for(1000, 0, None), 1);
        // The variable wins over the machine, within MAX_JOBS.
        assert_eq!(workers_for(1000, 2, Some("12")), 12);
        assert_eq!(workers_for(1000, 2, Some(" 1 ")), 1);
        assert_eq!(workers_for(1000, 2, Some("100000")), MAX_JOBS);
        // A value that is no positive integer is ignored.
        for bad in ["0", "-3", "four", ""] {
            assert_eq!(workers_for(1000, 4, Some(bad)), 4, "{bad:?}");
        }
    }

    /// Jobs whose later ones finish first: the results still come in the
    /// order the jobs were made.
    #[test]
    fn results_come_in_the_order_the_jobs_were_made() {
        for workers in [1, 2, 4, 9] {
            let work = |n: u64| {
                std::thread::sleep(Duration::from_millis(20 - n));
                n * n
            };
            let (t, out) = pipeline(workers, work, |submit| {
                for n in 0..20 {
                    submit(n);
                }
                Ok::<_, ()>("done")
            })
            .unwrap();
            assert_eq!(t, "done");
            assert_eq!(out, (0..20).map(|n| n * n).collect::<Vec<_>>(), "{workers}");
        }
    }

    #[test]
    fn the_work_runs_on_several_threads_at_once() {
        let running = std::sync::atomic::AtomicUsize::new(0);
        let most = std::sync::atomic::AtomicUsize::new(0);
        let work = |_: u32| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(30));
            running.fetch_sub(1, Ordering::SeqCst);
        };
        pipeline(3, work, |submit| {
            (0..9).for_each(&mut *submit);
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!(most.load(Ordering::SeqCst), 3);
        // One worker: every job on the calling thread, one at a time.
        most.store(0, Ordering::SeqCst);
        let caller = std::thread::current().id();
        pipeline(
            1,
            |_: u32| {
                assert_eq!(std::thread::current().id(), caller);
                work(0)
            },
            |submit| {
                (0..3).for_each(&mut *submit);
                Ok::<_, ()>(())
            },
        )
        .unwrap();
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }

    /// The producer's error is the result; the jobs queued behind it do
    /// not run.
    #[test]
    fn an_error_of_the_producer_stops_the_jobs() {
        let ran = std::sync::atomic::AtomicUsize::new(0);
        let work = |_: u32| {
            std::thread::sleep(Duration::from_millis(50));
            ran.fetch_add(1, Ordering::SeqCst);
        };
        let r = pipeline(2, work, |submit| {
            (0..4).for_each(&mut *submit);
            Err::<(), _>("expansion failed")
        });
        assert_eq!(r.unwrap_err(), "expansion failed");
        // Two ran (or were running) when the error came; the two queued did not.
        assert!(
            ran.load(Ordering::SeqCst) <= 2,
            "{}",
            ran.load(Ordering::SeqCst)
        );
    }

    #[test]
    #[should_panic(expected = "job 3 fails")]
    fn a_panic_of_the_work_reaches_the_caller() {
        let work = |n: u32| assert!(n != 3, "job {n} fails");
        let _ = pipeline(2, work, |submit| {
            (0..8).for_each(&mut *submit);
            Ok::<_, ()>(())
        });
    }
}
