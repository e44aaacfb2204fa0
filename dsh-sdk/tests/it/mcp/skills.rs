//! Skills over MCP (the Skills extension): listed a page at a time, got by
//! URI, their files read as resources, declared only when there are skills,
//! and served again by a proxy of the server.
#![cfg(feature = "proxy")]

use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::mcp::rmcp::model::{
    ErrorCode, GetSkillRequestParams, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ResourceContents, SKILLS_EXTENSION_ID, SkillResources,
};
use dsh_kit::mcp::rmcp::service::RunningService;
use dsh_kit::mcp::rmcp::{
    ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceError, ServiceExt,
};
use dsh_kit::mcp::{McpProxy, McpServer};
use dsh_kit::skill::{self, Skill};
use serde_json::json;

const STEP: Duration = Duration::from_secs(20);

fn refunds() -> Skill {
    Skill::new(
        "refunds",
        "Process refund requests per policy",
        "# Refunds\n\nAnswer with `examples/email.md`.\n",
    )
    .unwrap()
    .field("license", "Apache-2.0")
    .unwrap()
    .file("examples/email.md", "Dear customer,\n")
    .unwrap()
    .file("logo.bin", vec![0xff, 0x00, 0x01])
    .unwrap()
    .prefix("acme/billing")
    .unwrap()
}

async fn connect(registry: &Registry, modern: bool) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(registry.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = match modern {
        true => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        false => ClientLifecycleMode::Initialize,
    };
    tokio::time::timeout(STEP, ().serve_with_lifecycle(client_io, lifecycle))
        .await
        .expect("the handshake ends in time")
        .expect("the handshake succeeds")
}

fn declares_skills(client: &RunningService<RoleClient, ()>) -> bool {
    client
        .peer_info()
        .and_then(|info| info.capabilities.extensions.clone())
        .is_some_and(|extensions| extensions.get(SKILLS_EXTENSION_ID) == Some(&Default::default()))
}

#[tokio::test]
async fn skills_are_listed_got_and_read_in_both_protocol_eras() {
    let registry = Registry::builder().skill(refunds()).build();
    for modern in [true, false] {
        let client = connect(&registry, modern).await;
        assert!(declares_skills(&client), "modern: {modern}");
        let listed = client.list_skills(None).await.unwrap();
        assert_eq!(listed.next_cursor, None);
        if modern {
            assert_eq!(
                (listed.ttl_ms, listed.cache_scope.is_some()),
                (Some(0), true)
            );
        }
        assert_eq!(listed.skills.len(), 1);
        let skill = &listed.skills[0];
        assert_eq!(skill.uri, "skill://acme/billing/refunds/SKILL.md");
        assert_eq!(skill.frontmatter.name, "refunds");
        assert_eq!(skill.frontmatter.extra["license"], json!("Apache-2.0"));
        let SkillResources::Files(files) = &skill.resources else {
            panic!("a declared skill has a manifest");
        };
        let uris: Vec<&str> = files.iter().map(|file| file.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://acme/billing/refunds/examples/email.md",
                "skill://acme/billing/refunds/logo.bin",
            ]
        );

        let got = client
            .get_skill(GetSkillRequestParams::new(skill.uri.clone()))
            .await
            .unwrap();
        assert_eq!(&got.skill, skill);

        // Every file reads back as the bytes its digest and size promise.
        for file in files {
            let read = client
                .read_resource(ReadResourceRequestParams::new(file.uri.clone()))
                .await
                .unwrap();
            let bytes = match &read.contents[0] {
                ResourceContents::TextResourceContents { text, .. } => text.clone().into_bytes(),
                ResourceContents::BlobResourceContents { blob, .. } => {
                    use base64::Engine;
                    base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .unwrap()
                }
                other => panic!("unexpected contents {other:?}"),
            };
            file.verify(&bytes).unwrap();
        }
        // `resources/list` names each SKILL.md by its front matter.
        let resources = client.list_all_resources().await.unwrap();
        let skill_md = resources
            .iter()
            .find(|resource| resource.uri == skill.uri)
            .expect("SKILL.md is listed");
        assert_eq!(skill_md.name, "refunds");
        assert_eq!(skill_md.mime_type.as_deref(), Some("text/markdown"));
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn an_unknown_skill_is_invalid_params() {
    let registry = Registry::builder().skill(refunds()).build();
    let client = connect(&registry, true).await;
    for uri in [
        "skill://nobody/SKILL.md",
        "skill://acme/billing/refunds/README.md",
    ] {
        let error = client
            .get_skill(GetSkillRequestParams::new(uri))
            .await
            .unwrap_err();
        let ServiceError::McpError(error) = error else {
            panic!("{uri}: {error}");
        };
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{uri}");
    }
    let error = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://acme/billing/refunds/missing.md",
        ))
        .await
        .unwrap_err();
    assert!(matches!(error, ServiceError::McpError(_)), "{error}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_extension_is_declared_only_with_skills() {
    let registry = Registry::new();
    let client = connect(&registry, true).await;
    assert!(!declares_skills(&client));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn skills_are_listed_a_page_at_a_time_in_uri_order() {
    let skills =
        (0..150).map(|n| Skill::new(format!("skill-{n:03}"), "A numbered skill", "").unwrap());
    let registry = Registry::builder().skills(skills).build();
    let client = connect(&registry, true).await;
    let first = client.list_skills(None).await.unwrap();
    assert_eq!(first.skills.len(), 100);
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = client
        .list_skills(Some(
            PaginatedRequestParams::default().with_cursor(Some(cursor)),
        ))
        .await
        .unwrap();
    assert_eq!(second.skills.len(), 50);
    assert_eq!(second.next_cursor, None);
    let uris: Vec<String> = first
        .skills
        .iter()
        .chain(&second.skills)
        .map(|skill| skill.uri.clone())
        .collect();
    let expected: Vec<String> = (0..150)
        .map(|n| format!("skill://skill-{n:03}/SKILL.md"))
        .collect();
    assert_eq!(uris, expected);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_proxy_serves_the_skills_of_its_server_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("git-workflow/scripts")).unwrap();
    std::fs::write(
        dir.path().join("git-workflow/SKILL.md"),
        "---\nname: git-workflow\ndescription: Branch and commit the team's way\n---\nRun `scripts/check.sh`.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("git-workflow/scripts/check.sh"),
        "#!/bin/sh\ngit status\n",
    )
    .unwrap();
    let remote = Registry::builder()
        .skills(skill::load_dir(dir.path()).unwrap())
        .build();
    let server = McpServer::new(remote)
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();

    let host = Registry::builder().skill(refunds()).build();
    let proxy = tokio::time::timeout(STEP, McpProxy::builder("remote").http(&host, &server.url()))
        .await
        .unwrap()
        .unwrap();
    let uris: Vec<String> = host
        .skills()
        .entries()
        .into_iter()
        .map(|entry| entry.uri)
        .collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://git-workflow/SKILL.md"
        ]
    );

    // A client of the host lists, gets and reads the remote skill.
    let client = connect(&host, true).await;
    let got = client
        .get_skill(GetSkillRequestParams::new("skill://git-workflow/SKILL.md"))
        .await
        .unwrap();
    let SkillResources::Files(files) = &got.skill.resources else {
        panic!("the remote skill has a manifest");
    };
    assert_eq!(files.len(), 2);
    for file in files {
        let read = client
            .read_resource(ReadResourceRequestParams::new(file.uri.clone()))
            .await
            .unwrap();
        let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
            panic!("text");
        };
        file.verify(text.as_bytes()).unwrap();
    }
    client.cancel().await.unwrap();

    // Its skills go with the proxy.
    drop(proxy);
    let uris: Vec<String> = host
        .skills()
        .entries()
        .into_iter()
        .map(|entry| entry.uri)
        .collect();
    assert_eq!(uris, ["skill://acme/billing/refunds/SKILL.md"]);
}
