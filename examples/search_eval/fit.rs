//! `--fit`: the rerank's weights fitted to the "dev" questions by coordinate
//! ascent on MRR@10, over the measures the index computes for its
//! candidates, then scored on both splits.

use dsh_kit::search::{FEATURE_NAMES, Features, RERANK_WEIGHTS, ToolIndex};

const FEATURES: usize = FEATURE_NAMES.len();

use super::{LIMIT, Query};

/// One question's candidates as the rerank sees them.
pub struct Sample {
    live: bool,
    names: Vec<String>,
    features: Vec<Features>,
    /// Where the answer is among the candidates, if it is.
    answer: Option<usize>,
}

pub fn samples(index: &ToolIndex, queries: &[Query]) -> Vec<Sample> {
    queries
        .iter()
        .map(|query| {
            let candidates = index.candidates(&query.text);
            let names: Vec<String> = candidates
                .iter()
                .map(|(tool, _)| tool.name().to_owned())
                .collect();
            Sample {
                live: query.live,
                answer: names.iter().position(|name| *name == query.answer),
                names,
                features: candidates
                    .into_iter()
                    .map(|(_, features)| features)
                    .collect(),
            }
        })
        .collect()
}

fn score(features: &Features, weights: &Features) -> f32 {
    features.iter().zip(weights).map(|(f, w)| f * w).sum()
}

/// The answer's place (from 0) under `weights`: ties go by name.
fn place(sample: &Sample, weights: &Features) -> Option<usize> {
    let answer = sample.answer?;
    let own = score(&sample.features[answer], weights);
    let name = &sample.names[answer];
    Some(
        sample
            .features
            .iter()
            .zip(&sample.names)
            .filter(|(features, other)| {
                let theirs = score(features, weights);
                theirs > own || (theirs == own && *other < name)
            })
            .count(),
    )
}

/// hit@1, hit@5 and MRR@10 over the samples of one split (or all).
pub fn metrics(samples: &[Sample], weights: &Features, live: Option<bool>) -> [f64; 3] {
    let mut sums = [0.0; 3];
    let mut n = 0;
    for sample in samples {
        if live.is_some_and(|live| live != sample.live) {
            continue;
        }
        n += 1;
        if let Some(at) = place(sample, weights).filter(|&at| at < LIMIT) {
            sums[0] += f64::from(u8::from(at == 0));
            sums[1] += f64::from(u8::from(at < 5));
            sums[2] += 1.0 / (at + 1) as f64;
        }
    }
    sums.map(|sum| sum / n.max(1) as f64)
}

/// Coordinate ascent on "dev" MRR@10 from the index's weights, moving only
/// the features in `free` (the first, the first stage's score, stays at 1
/// as the scale).
pub fn fit(samples: &[Sample], free: &[usize]) -> Features {
    let mut weights = RERANK_WEIGHTS;
    let objective = |weights: &Features| metrics(samples, weights, Some(false))[2];
    let mut best = objective(&weights);
    const STEPS: [f32; 10] = [-0.2, -0.1, -0.05, -0.02, -0.01, 0.01, 0.02, 0.05, 0.1, 0.2];
    for _round in 0..30 {
        let mut moved = false;
        for &feature in free {
            let mut chosen = None;
            for step in STEPS {
                let mut trial = weights;
                trial[feature] += step;
                let value = objective(&trial);
                if value > best + 1e-9 {
                    best = value;
                    chosen = Some(trial);
                }
            }
            if let Some(trial) = chosen {
                weights = trial;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    weights
}

/// The weights that maximise the likelihood of each "dev" answer under a
/// softmax over its question's candidates, less an L2 penalty of `lambda`,
/// by gradient ascent (Adam) from the index's weights, moving only `free`
/// and the first stage's score; scaled so the latter weighs 1.
pub fn softmax_fit(samples: &[Sample], free: &[usize], lambda: f32) -> Features {
    const TEMPERATURE: f32 = 10.0;
    const RATE: f32 = 0.05;
    let mut weights = RERANK_WEIGHTS.map(|w| w * TEMPERATURE);
    let dev: Vec<(&Sample, usize)> = samples
        .iter()
        .filter(|sample| !sample.live)
        .filter_map(|sample| Some((sample, sample.answer?)))
        .collect();
    let (mut first, mut second) = ([0.0f32; FEATURES], [0.0f32; FEATURES]);
    for step in 1..=400 {
        let mut gradient = [0.0f32; FEATURES];
        for &(sample, answer) in &dev {
            let scores: Vec<f32> = sample.features.iter().map(|f| score(f, &weights)).collect();
            let max = scores.iter().copied().fold(f32::MIN, f32::max);
            let exps: Vec<f32> = scores.iter().map(|s| (s - max).exp()).collect();
            let total: f32 = exps.iter().sum();
            for (features, e) in sample.features.iter().zip(&exps) {
                for (g, f) in gradient.iter_mut().zip(features) {
                    *g -= e / total * f;
                }
            }
            for (g, f) in gradient.iter_mut().zip(&sample.features[answer]) {
                *g += f;
            }
        }
        for &k in free.iter().chain(&[0]) {
            let g = gradient[k] / dev.len().max(1) as f32 - lambda * weights[k];
            first[k] = 0.9 * first[k] + 0.1 * g;
            second[k] = 0.999 * second[k] + 0.001 * g * g;
            let m = first[k] / (1.0 - 0.9f32.powi(step));
            let v = second[k] / (1.0 - 0.999f32.powi(step));
            weights[k] += RATE * m / (v.sqrt() + 1e-8);
        }
    }
    let scale = weights[0];
    weights.map(|w| w / scale)
}

pub fn run(index: &ToolIndex, queries: &[Query], free: &[usize]) {
    let samples = samples(index, queries);
    let fitted = match std::env::var("FIT_LAMBDA")
        .ok()
        .and_then(|l| l.parse().ok())
    {
        Some(lambda) => softmax_fit(&samples, free, lambda),
        None => fit(&samples, free),
    };
    for (label, weights) in [("index", RERANK_WEIGHTS), ("fitted", fitted)] {
        let cells: Vec<String> = [Some(false), Some(true), None]
            .into_iter()
            .map(|live| {
                let [h1, h5, mrr] = metrics(&samples, &weights, live);
                format!("{h1:.3}  {h5:.3}  {mrr:.3}")
            })
            .collect();
        println!(
            "{label:<8} dev {}   live {}   all {}",
            cells[0], cells[1], cells[2]
        );
    }
    for (name, weight) in FEATURE_NAMES.iter().zip(fitted) {
        println!("  {name:<22} {weight:.3}");
    }
}
