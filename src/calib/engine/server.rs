//! The server's side of a pair: it carries out the client's commands until told done.
use super::probes::*;
use super::wire::*;
use loggp_model::stats::summarize;
/// Serves a client until it says done (or the channel fails). Each repetition's first
/// message may be the client's stop mark: the command ends there and the server waits
/// for the next. A reversed command makes this side the one that sends and times.
pub fn serve<T: Transport, C: Control>(t: &mut T, ctl: &mut C) {
    'commands: while let Some(w) = ctl.recv_words() {
        let (cmd, n, s, reps) = (w[0] & 0x7f, w[1], w[2] as usize, w[3]);
        let reversed = w[0] & REVERSED != 0;
        let arg = w[0] >> 16;
        if cmd != CMD_DONE {
            t.select((w[0] >> 8 & 0xff) as usize);
        }
        match (cmd, reversed) {
            (CMD_PRTT, false) => {
                for _ in 0..reps {
                    match answer_prtt(t, n, s) {
                        Answer::Done => {}
                        Answer::Stopped => continue 'commands,
                        Answer::Failed => return,
                    }
                }
            }
            (CMD_PRTT, true) => {
                let (mut out, mut calls) = (vec![], vec![]);
                for _ in 0..reps {
                    match drive_prtt(t, n, arg, s, &mut calls) {
                        Some(x) => out.push(x),
                        None => return,
                    }
                }
                if !send_floats(ctl, &out) || !send_floats(ctl, &calls) {
                    return;
                }
            }
            (CMD_ORECV, false) => {
                let mut samples = Vec::with_capacity((reps * n) as usize);
                for _ in 0..reps {
                    match time_receives(t, n, arg, s, &mut samples) {
                        Answer::Done => {}
                        Answer::Stopped => continue 'commands,
                        Answer::Failed => return,
                    }
                }
                let sm = summarize(&mut samples);
                ctl.send_words(&[
                    sm.median.to_bits(),
                    sm.min.to_bits(),
                    sm.iqr.to_bits(),
                    sm.n as u64,
                ]);
                // The samples, for the bootstrap of the intervals.
                if !send_floats(ctl, &samples) {
                    return;
                }
            }
            (CMD_ORECV, true) => {
                for _ in 0..reps {
                    if !feed_receives(t, n, s) {
                        return;
                    }
                }
            }
            (CMD_LATE, false) => {
                for _ in 0..reps {
                    match answer_late(t, arg, s) {
                        Answer::Done => {}
                        Answer::Stopped => continue 'commands,
                        Answer::Failed => return,
                    }
                }
            }
            (CMD_EXCHANGE, _) => {
                let Some(how) = Exchange::from_wire(arg) else {
                    return;
                };
                if matches!(
                    how,
                    Exchange::Isolated | Exchange::OneWay | Exchange::Paused
                ) {
                    // This side's readings, two messages to a control message, for the
                    // client. The command's last word: the pause (`Exchange::Paused`).
                    let Some(v) = isolated_steps(t, n, s, how, false, reps) else {
                        return;
                    };
                    for two in v.chunks(2) {
                        let b = two.get(1).copied().unwrap_or_default();
                        if !ctl.send_words(&[two[0][0], two[0][1], b[0], b[1]]) {
                            return;
                        }
                    }
                } else if exchange_train(t, n, s, how).is_none() {
                    return;
                }
            }
            (CMD_CHOOSE, _) => {
                if !t.choose(ctl, false) {
                    return;
                }
            }
            (CMD_LATE, true) => {
                let mut times = vec![];
                for _ in 0..reps {
                    match send_late(t, s) {
                        Some(x) => times.push(x),
                        None => return,
                    }
                }
                if !send_floats(ctl, &times) {
                    return;
                }
            }
            _ => return,
        }
    }
}
