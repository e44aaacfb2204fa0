//! The model loop for each provider: recorded responses in, the next
//! request's messages out, checked against reviewed snapshots.

mod anthropic;
mod failure;
mod gemini;
mod openai_chat;
mod openai_responses;
