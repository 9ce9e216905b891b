//! [`StoreRuntime`]: PostgreSQL on a runtime of its own, for stores whose calls are synchronous.
//!
//! The frontier, the dedup index and the crawl state are called from plain threads (page
//! processing) and from async tasks (the crawl's main loop) alike, while sqlx is async. Each
//! store therefore runs its queries on a one-thread tokio runtime of its own and waits for the
//! answer on the calling thread: this works inside another runtime too, where a nested
//! `block_on` would panic.
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

/// A future run by [`StoreRuntime::block_on`] panicked (its answer never came).
#[derive(Debug, thiserror::Error)]
#[error("a PostgreSQL call panicked")]
pub struct CallPanicked;

/// A one-thread tokio runtime that runs a store's PostgreSQL calls. Dropping it lets its
/// thread go in the background (dropping a runtime blocks, which panics in an async context).
pub struct StoreRuntime {
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for StoreRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreRuntime").finish_non_exhaustive()
    }
}

impl StoreRuntime {
    /// Starts the runtime; its thread is called `thread_name`.
    pub fn start(thread_name: &'static str) -> std::io::Result<StoreRuntime> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name(thread_name)
            .enable_all()
            .build()?;
        Ok(StoreRuntime {
            runtime: Some(runtime),
        })
    }

    /// Runs `future` on the runtime and waits for its answer (from any thread, inside a
    /// runtime or not).
    ///
    /// A worker thread of a multi-thread tokio runtime hands its other tasks to another
    /// thread while it waits (`block_in_place`): a crawl with `--threads 1` has one such
    /// thread, and its fetches go on during the round trip instead of stalling behind it.
    pub fn block_on<T: Send + 'static>(
        &self,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, CallPanicked> {
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        self.spawn(async move {
            let _ = sender.send(future.await);
        });
        let on_multi_thread_runtime = tokio::runtime::Handle::try_current().is_ok_and(|handle| {
            handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
        });
        let answer = if on_multi_thread_runtime {
            tokio::task::block_in_place(|| receiver.recv())
        } else {
            receiver.recv()
        };
        answer.map_err(|_| CallPanicked)
    }

    /// Runs `future` on the runtime without waiting for it (a rollback of a transaction left
    /// over, whose connection must be given back inside the runtime).
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
