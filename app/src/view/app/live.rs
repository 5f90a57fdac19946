//! The Live switch: while it is on, the open table is looked at every few seconds. A look reads
//! the newest metadata file where the source can say which it is (a folder picked as a handle
//! is listed again; a catalog is asked with the last ETag) and, when it is new, only what it
//! adds; the charts, findings and snapshot table then extend in place, and the look's events
//! join the list. Files read through the folder input (or dropped where the browser hands over no
//! folder handle) are a copy of one moment and cannot be followed.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::analysis::live::LiveOptions;
use crate::source::browser::follow::not_followable;
use crate::source::follow::{Follow, Follows, Newer};

use super::files::TableFiles;
use super::loader::{publish, report_progress};
use super::AppState;

/// The intervals offered, in seconds.
const EVERY_S: [u64; 4] = [2, 5, 15, 60];

pub(super) async fn sleep_ms(ms: u64) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.min(i32::MAX as u64) as i32);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The watch's own state in the page: on or off, how often, and why the last look failed.
#[derive(Clone, Copy)]
struct Watching {
    on: RwSignal<bool>,
    every_s: RwSignal<u64>,
    problem: RwSignal<Option<String>>,
    /// Bumped by every start: a loop from an earlier start stops.
    run: RwSignal<u64>,
}

async fn follow(state: AppState, w: Watching, generation: u64, run: u64) {
    let mut follow = Follow::default();
    let alive = move || state.generation.get_untracked() == generation && w.on.get_untracked() && w.run.get_untracked() == run;
    let mut first = true;
    while alive() {
        if !first {
            sleep_ms(w.every_s.get_untracked() * 1000).await;
            if !alive() {
                return;
            }
        }
        first = false;
        let Some(current) = state.session.get_value().filter(|c| c.generation == generation) else { return };
        // The first reading (or a borrower: footers, duplicates) finishes before a look.
        let mut s = current.session.lock().await;
        if !alive() {
            return;
        }
        let path = s.loader.history.metadata_file.clone();
        super::marks::mark("icescope:live:asking");
        match current.files.newer(&path, &mut follow).await {
            Ok(Some(Newer { path: newest, files: fresh, pick, hinted })) => {
                super::marks::mark("icescope:live:newer");
                let files = fresh.map(Rc::new).unwrap_or_else(|| current.files.clone());
                if let Err(e) = s.advance(files.clone(), &newest).await {
                    w.problem.set(Some(format!("{newest}: {e}")));
                    continue;
                }
                super::marks::mark("icescope:live:advanced");
                let pick = match (pick, hinted, &*files) {
                    (None, true, TableFiles::Handle(h)) => {
                        let version = crate::source::metadata_pick::metadata_version;
                        let between = match (version(&path), version(&newest)) {
                            (Some(a), Some(b)) => h.versions_between(a, b).await,
                            _ => Vec::new(),
                        };
                        let m = &s.loader.history.metadata;
                        s.pick.clone().map(|p| p.with_newest(&newest, m.last_sequence_number, m.last_updated_ms, between))
                    }
                    (pick, ..) => pick,
                };
                if pick.is_some() {
                    s.pick.clone_from(&pick);
                }
                state.session.update_value(|c| {
                    if let Some(c) = c.as_mut().filter(|c| c.generation == generation) {
                        c.files = files;
                        if pick.is_some() {
                            c.pick = pick;
                        }
                    }
                });
            }
            Ok(None) => {}
            Err(e) => {
                w.problem.set(Some(e));
                continue;
            }
        }
        if !alive() {
            return;
        }
        w.problem.set(None);
        s.look(js_sys::Date::now() as i64, LiveOptions::default());
        super::marks::mark("icescope:live:looked");
        let place = super::keep_place::mark();
        publish(state, &mut s, 0);
        report_progress(state, &s, false, None, true);
        super::marks::mark("icescope:live:look");
        super::keep_place::restore(place).await;
    }
}

/// The switch, the interval, and while on: the badge with each writer's last commit.
#[component]
pub fn LiveSwitch() -> impl IntoView {
    let state = expect_context::<AppState>();
    let w = Watching { on: RwSignal::new(false), every_s: RwSignal::new(5), problem: RwSignal::new(None), run: RwSignal::new(0) };
    provide_context(w);
    // The session is no signal: its answers are, and one comes with it.
    let why_not = move || {
        state.opened.track();
        state.session.with_value(|c| c.as_ref().and_then(|c| not_followable(&c.files)).map(str::to_string))
    };
    let toggle = move |_| {
        let on = !w.on.get_untracked();
        w.on.set(on);
        w.problem.set(None);
        if on {
            let run = w.run.get_untracked() + 1;
            w.run.set(run);
            spawn_local(follow(state, w, state.generation.get_untracked(), run));
        } else {
            state.session.with_value(|c| {
                if let Some(c) = c {
                    if let Some(mut s) = c.session.try_lock() {
                        s.stop_watching();
                        publish(state, &mut s, 0);
                    }
                }
            });
        }
    };
    let live = state.part(|o| o.live.clone());
    view! {
        <div class="live" data-testid="live" data-on=move || w.on.get().to_string()>
            <button class="live-switch" data-testid="live-switch" aria-pressed=move || w.on.get().to_string()
                disabled=move || why_not().is_some() title=move || why_not().unwrap_or_default() on:click=toggle>
                {move || if w.on.get() { "● Live" } else { "Live" }}
            </button>
            <label class="hint">" every "
                <select data-testid="live-every" on:change=move |ev| w.every_s.set(event_target_value(&ev).parse().unwrap_or(5))>
                    {EVERY_S.iter().map(|s| view! { <option value=s.to_string() selected=*s == 5>{format!("{s} s")}</option> }).collect_view()}
                </select>
            </label>
            {move || why_not().map(|why| view! { <span class="hint" data-testid="live-why-not">{format!(" {why}")}</span> })}
            {move || w.problem.get().map(|p| view! { <span class="error" data-testid="live-problem">{format!(" {p}")}</span> })}
            {move || live.get().flatten().filter(|_| w.on.get()).map(|l| {
                let writers: Vec<String> = l.writers.iter().filter(|p| !p.replaced && !p.finished).map(|p| crate::report::live::since_last(p, l.looked_ms)).collect();
                view! {
                    <span class="live-badge" data-testid="live-badge" data-looks=l.looks.to_string()>
                        {format!(" looked at {} · {}", crate::model::time::rfc3339_ms(l.looked_ms), if writers.is_empty() { "no writer committing".to_string() } else { writers.join(" · ") })}
                    </span>
                }
            })}
        </div>
    }
}

/// The events of the watch, newest first.
#[component]
pub fn LiveEvents() -> impl IntoView {
    let state = expect_context::<AppState>();
    let live = state.part(|o| o.live.clone());
    move || {
        live.get().flatten().filter(|l| !l.events.is_empty()).map(|l| {
            view! {
                <details class="live-events" open data-testid="live-events" data-count=l.events.len().to_string()>
                    <summary>{crate::report::live::events_heading(l.events.len(), l.looks)}</summary>
                    <ol>{l.events.iter().map(|e| {
                        let alarm = e.event.is_alarm();
                        let kind = e.event.name();
                        view! { <li class:alarm=alarm data-kind=kind class="mono">{crate::report::live::line(e)}</li> }
                    }).collect_view()}</ol>
                </details>
            }
        })
    }
}
