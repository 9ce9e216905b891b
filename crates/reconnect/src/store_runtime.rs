//! [`StoreRuntime`]: PostgreSQL on a runtime of its own, for stores whose calls are synchronous.
//!
//! The frontier, the dedup index and the crawl state are called from plain threads (page
//! processing) and from async tasks (the crawl's main loop) alike, while sqlx is async. Each
//! store therefore has a tokio runtime of its own (its connections' sockets and timers live
//! there), which the calling thread drives itself while it waits for the answer: this works
//! inside another runtime too, where a nested `block_on` would panic.
//!
//! Why the caller drives it: the store's runtime had a thread of its own, which ran each call
//! and sent the answer back over a channel; every call then woke two threads, and a one-row
//! statement cost ~90 µs wall and ~40–60 µs of the worker's CPU, against ~23 µs and ~8–10 µs
//! when the calling thread runs it (micro-benchmark, 5,000 `SELECT $1` on one connection;
//! a PostgreSQL worker makes ~9 calls a page).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use dedupcrawl_reconnect::StoreRuntime;
//! let runtime = StoreRuntime::start("frontier-postgres")?;
//! let answer: i32 = runtime.block_on(async { 42 })?;
//! assert_eq!(answer, 42);
//! # Ok(()) }
//! ```

use std::future::Future;
use std::panic::AssertUnwindSafe;

/// A future run by [`StoreRuntime::block_on`] panicked (its answer never came).
#[derive(Debug, thiserror::Error)]
#[error("a PostgreSQL call panicked")]
pub struct CallPanicked;

/// A current-thread tokio runtime for a store's PostgreSQL calls, driven by the threads that
/// call it ([`block_on`](Self::block_on)). Dropping it lets go of its tasks in the background
/// (dropping a runtime blocks, which panics in an async context).
pub struct StoreRuntime {
    runtime: Option<tokio::runtime::Runtime>,
    /// The name of a thread that runs a call made from inside a current-thread runtime.
    thread_name: &'static str,
}

impl std::fmt::Debug for StoreRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreRuntime").finish_non_exhaustive()
    }
}

impl StoreRuntime {
    /// Starts the runtime; a call made from inside a current-thread runtime runs on a thread
    /// called `thread_name`.
    pub fn start(thread_name: &'static str) -> std::io::Result<StoreRuntime> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        Ok(StoreRuntime {
            runtime: Some(runtime),
            thread_name,
        })
    }

    /// Runs `future` on the runtime, driven by the calling thread, and answers it (from any
    /// thread, inside a runtime or not). Several threads may call at once: one drives the
    /// runtime's sockets and timers for all of them.
    ///
    /// A worker thread of a multi-thread tokio runtime hands its other tasks to another
    /// thread while it waits (`block_in_place`): a crawl with `--threads 1` has one such
    /// thread, and its fetches go on during the round trip instead of stalling behind it.
    /// Inside a current-thread runtime (which cannot be left that way) the call runs on a
    /// thread of its own.
    pub fn block_on<T: Send + 'static>(
        &self,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, CallPanicked> {
        let Some(runtime) = &self.runtime else {
            return Err(CallPanicked);
        };
        let run = || {
            std::panic::catch_unwind(AssertUnwindSafe(|| runtime.block_on(future)))
                .map_err(|_| CallPanicked)
        };
        match tokio::runtime::Handle::try_current().map(|handle| handle.runtime_flavor()) {
            Err(_) => run(),
            Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(run),
            Ok(_) => std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .name(self.thread_name.to_string())
                    .spawn_scoped(scope, run)
                    .map_err(|_| CallPanicked)?
                    .join()
                    .map_err(|_| CallPanicked)?
            }),
        }
    }

    /// Runs `future` on the runtime without waiting for it (a rollback of a transaction left
    /// over, whose connection must be given back inside the runtime): it runs while a later
    /// call drives the runtime.
    pub fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        if let Some(runtime) = &self.runtime {
            runtime.spawn(future);
        }
    }
}

impl Drop for StoreRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_from_a_plain_thread_and_from_inside_another_runtime() {
        let store = std::sync::Arc::new(StoreRuntime::start("test-store").unwrap());
        assert_eq!(store.block_on(async { 1 + 1 }).unwrap(), 2);
        let outer = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let inner = std::sync::Arc::clone(&store);
        let answer = outer.block_on(async move { inner.block_on(async { 7 }) });
        assert_eq!(answer.unwrap(), 7);
    }

    /// With one runtime thread, a task that waits for a store call does not stop the
    /// others: here the call waits for a task queued behind it on the same thread, which
    /// would never run if the waiting thread kept its tasks.
    #[test]
    fn a_wait_on_a_one_thread_runtime_lets_its_other_tasks_run() {
        let store = std::sync::Arc::new(StoreRuntime::start("test-store").unwrap());
        let (done, outcome) = std::sync::mpsc::channel();
        // On a thread of its own: a deadlock must fail the test, not hang it.
        std::thread::spawn(move || {
            let outer = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .build()
                .unwrap();
            let answer = outer.block_on(async move {
                tokio::spawn(async move {
                    let (ready, fired) = tokio::sync::oneshot::channel::<u32>();
                    // Queued on this worker thread: it runs only when the thread moves on.
                    tokio::spawn(async move {
                        let _ = ready.send(5);
                    });
                    store.block_on(async move { fired.await.unwrap_or(0) + 1 })
                })
                .await
            });
            let _ = done.send(answer.map(|call| call.ok()).ok().flatten());
        });
        let answer = outcome
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the waiting thread kept its tasks: deadlock");
        assert_eq!(answer, Some(6));
    }

    /// Threads calling at once share the runtime's driver: each one's timer fires, whichever
    /// thread drives it, and a call that ends hands the driving on.
    #[test]
    fn several_threads_drive_their_calls_at_once() {
        let store = std::sync::Arc::new(StoreRuntime::start("test-store").unwrap());
        let callers: Vec<_> = (0..4u64)
            .map(|i| {
                let store = std::sync::Arc::clone(&store);
                std::thread::spawn(move || {
                    (0..20)
                        .map(|round| {
                            store
                                .block_on(async move {
                                    let pause = std::time::Duration::from_millis((i + round) % 3);
                                    tokio::time::sleep(pause).await;
                                    i
                                })
                                .unwrap()
                        })
                        .sum::<u64>()
                })
            })
            .collect();
        let sums: Vec<u64> = callers.into_iter().map(|c| c.join().unwrap()).collect();
        assert_eq!(sums, vec![0, 20, 40, 60]);
    }

    #[test]
    fn a_panicking_call_is_an_error_not_a_hang() {
        let store = StoreRuntime::start("test-store").unwrap();
        let answer = store.block_on(async {
            if true {
                panic!("the call fails");
            }
            1
        });
        assert!(matches!(answer, Err(CallPanicked)));
    }
}
