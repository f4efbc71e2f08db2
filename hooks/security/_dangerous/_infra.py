"""Rule family: infrastructure and the warn tools. ``kubectl``/``helm``/``terraform``, cloud CLIs,
production targets (namespaces, contexts, hosts), container prunes, package publishing, user-wide
``git config`` writes and the other destructive-but-sometimes-legitimate commands that ask."""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection

import _shell
from _common import Finding
from _shell import Cmd, Ctx, lazy_compile

from ._system import SECURITY_SERVICES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    # The hook's dispatch, passed in (not imported) so the families do not import their caller.
    Check = Callable[[str, Ctx], list[Finding]]

_GIT_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--edit", "-e", "--help"}
)


def _writes_user_git_config(cmd: Cmd) -> bool:
    """``git config --global pull.rebase true`` (or ``--system``, ``--unset``, ``--add``): a change
    to configuration outside the project. Reading (``--get``, ``--list``, a key alone) is not."""
    _flags, positionals, _values = _shell.split_options(
        cmd.args, frozenset({"-C", "-c", "--git-dir", "--work-tree"}), stop_at_first=True
    )
    lits = [w.literal() or "" for w in positionals]
    if lits[:1] != ["config"] or not {"--global", "--system"} & set(lits):
        return False
    rest = lits[1:]
    if _GIT_CONFIG_READS & set(rest):
        return False
    operands = [a for a in rest if not a.startswith("-")]
    return len(operands) >= 2 or any(
        a.startswith(("--unset", "--add", "--replace", "--remove", "--rename")) for a in rest
    )


def _hijacks_every_repository(cmd: Cmd) -> str:
    """A user-wide git setting that hands every repository to one place: ``core.hooksPath``
    (every repository runs that folder's hooks), ``url.<other host>.insteadOf <host>`` (every
    clone and fetch silently goes to another server). Same-host rewrites (https → ssh) pass."""
    _flags, positionals, _values = _shell.split_options(
        cmd.args, frozenset({"-C", "-c", "--git-dir", "--work-tree"}), stop_at_first=True
    )
    lits = [w.literal() or w.text for w in positionals]
    if lits[:1] != ["config"] or not {"--global", "--system"} & set(lits) or _GIT_CONFIG_READS & set(lits):
        return ""
    operands = [a for a in lits[1:] if not a.startswith("-")]
    if len(operands) < 2 or any(a.startswith("--unset") for a in lits):
        return ""
    key, value = operands[0].lower(), operands[1]
    if key == "core.hookspath":
        # The user's own hooks folder in their home (~/.githooks) is their configuration (asked);
        # a project's folder, a temporary one or one not known here hands every repository to it.
        word = next(w for w in positionals if (w.literal() or w.text) == value)
        values = cmd.values(word) or []
        paths = [_shell.normalize(v, cmd.ctx.cwd) for v in values]
        home = cmd.ctx.home
        if not (paths and home and all(p and _own_hooks_folder(p, home, cmd.ctx.project) for p in paths)):
            return "makes every repository of the user run the hooks of one project or temporary folder"
    m = re.fullmatch(r"url\.(.+)\.(?:push)?insteadof", key)
    if m and _url_host(m.group(1)) != _url_host(value):
        return f"silently sends every git fetch and push for {value} to another server"
    return ""


def _own_hooks_folder(path: str, home: str, project: str) -> bool:
    """The user's own hooks folder: directly in their home (``~/.githooks``) or in their
    configuration (``~/.config/git/hooks``, their dotfiles); a folder inside another checkout
    (``~/tools/.githooks``) is that project's hooks."""
    if not _shell.is_within(path, home) or _shell.is_within(path, project):
        return False
    rel = path[len(home.rstrip("/")) + 1 :]
    return "/" not in rel or rel.startswith((".config/", "dotfiles/", ".dotfiles/"))


def _url_host(url: str) -> str:
    """The host of a git URL (``https://h/…``, ``ssh://git@h/…``, ``git@h:…``), lower-cased."""
    m = re.match(r"(?:[a-z+]+://)?(?:[^@/]+@)?([^/:]+)", url.lower())
    return m.group(1) if m else url.lower()


def production(cmd: Cmd) -> bool:
    """Whether the command targets production (RAILS_ENV=production, --env prod …)."""
    texts = [w.literal() or w.text for w in cmd.argv]
    texts += [f"{k}={(v or [''])[0]}" for k, v in cmd.ctx.vars.items() if k.endswith("ENV")]
    texts += [f"{k}={v}" for k, v in cmd.env.items()]
    return (
        any(re.search(r"(?i)\b(?:[A-Z_]*ENV|--env|-e)=?(?:prod|production)\b", t) for t in texts)
        or "DISABLE_DATABASE_ENVIRONMENT_CHECK=1" in texts
        # DATABASE_URL="$PROD_DATABASE_URL", DJANGO_SETTINGS_MODULE=config.settings.production
        or any(_PROD_VALUE.search(v) for v in cmd.env.values())
    )


_PROD_VALUE = lazy_compile(r"(?i)(?:^|[@/.=_${-])(?:prod|production|live)(?:$|[.:/_}-])")


def _destroys_unattended(name: str, lits: list[str]) -> str:
    """Destruction of live infrastructure nobody gets to look at first: ``terraform destroy
    -auto-approve`` skips the plan, ``kubectl delete namespace production`` (or any delete in a
    production namespace or context) removes what users are served from."""
    if _iac_destroys(name, lits) and (_unattended(name, lits) or any(_PROD_VALUE.search(a) for a in lits)):
        return (
            "destroys production infrastructure, or any without showing the plan. Run it without the "
            "auto-approve flag on a non-production stack so the user reviews the plan, or ask the user."
        )
    ops = _argocd_ops(lits) if name == "argocd" else []
    if ops[:2] in (["app", "delete"], ["appset", "delete"]) and any(_PROD_NAME.search(a) for a in ops[2:]):
        return (
            "deletes a production Argo CD application and, cascading, everything it deployed. Ask the user to run it."
        )
    if name in ("kubectl", "helm") and _kube_verb(lits) in ("delete", "uninstall"):
        named_prod = any(_PROD_NAME.search(a) for a in lits if not a.startswith("-"))
        at = lits.index(_kube_verb(lits))
        kind = lits[at + 1 : at + 2]
        every_namespace = {"-A", "--all-namespaces"} & set(lits) and {"--all", "all"} & set(lits)
        if kind in (["namespace"], ["ns"], ["namespaces"]) and not named_prod and _preview_names(lits[at + 2 :]):
            return ""  # one pull request's preview namespace: asked below
        if kind in (["namespace"], ["ns"], ["namespaces"]) or every_namespace:
            return (
                "deletes whole namespaces with everything in them. Delete the resources meant, or ask "
                "the user to run it."
            )
        if _kube_target_prod(lits) and not _recreated_pods(name, lits[at + 1 :]):
            return "deletes resources in production. Ask the user to run it; try it on staging first."
    return ""


def _argocd_ops(lits: list[str]) -> list[str]:
    """The operands of an ``argocd`` command line (``--server``/``-n``-style values skipped)."""
    ops: list[str] = []
    skip = False
    for a in lits:
        if skip:
            skip = False
        elif a in ("--server", "--auth-token", "--grpc-web-root-path", "-n", "--app-namespace", "--context", "-l"):
            skip = True
        elif not a.startswith("-"):
            ops.append(a)
    return ops


# Tool → (its global options that take a value glued with =, the words of a destroy).
_IAC = frozenset({"terraform", "tofu", "terragrunt", "pulumi", "cdk", "cdktf", "serverless", "sls"})


_SYSTEM_MOUNTS = frozenset(
    {"/", "/etc", "/root", "/boot", "/usr", "/bin", "/sbin", "/lib", "/var", "/home", "/proc", "/sys"}
)


def _container_escape(name: str, lits: list[str]) -> str:
    """``docker run`` that hands the container the host: the root folder or a system folder
    mounted writable (``-v /:/host``), or ``--privileged`` with the host's process namespace
    (``--pid=host``, ``nsenter -t 1``) — a root shell on the host."""
    if name not in ("docker", "podman", "nerdctl") or not {"run", "create"} & set(lits[:2]):
        return ""
    for i, lit in enumerate(lits):
        opt, eq, value = lit.partition("=")
        if opt in ("-v", "--volume", "--mount") and not eq:
            value = lits[i + 1] if i + 1 < len(lits) else ""
        elif lit.startswith("-v") and len(lit) > 2 and not eq:
            value = lit[2:]
        elif opt not in ("-v", "--volume", "--mount"):
            continue
        if opt == "--mount":
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            source = fields.get("source", fields.get("src", ""))
            readonly = "readonly" in fields or "ro" in fields or fields.get("readonly") == "true"
        else:
            parts = value.split(":")
            source = parts[0]
            readonly = len(parts) > 2 and "ro" in parts[2].split(",")
        if source and (source.rstrip("/") or "/") in _SYSTEM_MOUNTS and not readonly:
            return f"mounts the host's {source} writable into a container"
    privileged = "--privileged" in lits
    host_pid = "--pid=host" in lits or any(pair == ("--pid", "host") for pair in itertools.pairwise(lits))
    if privileged and (host_pid or "nsenter" in lits):
        return "runs a privileged container in the host's process namespace (a root shell on the host)"
    return ""


_PROD_HOST = lazy_compile(r"(?i)(?:^|[@.-])(?:prod|production|live)(?:$|[.:\d-])")
# A host named for development or rehearsal (stage-web-1, dev-db, api.staging.example.net, test-vm).
_NON_PRODUCTION_HOST = lazy_compile(
    r"(?i)(?:^|[@._-])(?:stag(?:e|ing)|dev|devel|development|test|testing|qa|uat|sandbox|local|localhost|vagrant)"
    r"(?:$|[.:_\d-])"
)
# A board or device on the developer's bench, not a server others use: an mDNS name (rig-pi.local),
# a single-board computer's name or its image's default user (pi@, nvidia@ on a Jetson).
_DEVICE_HOST = lazy_compile(
    r"(?i)\.local$|^(?:pi|nvidia|jetson|debian|orangepi|radxa)@|(?:^|[@._-])(?:jetson|orin|xavier|raspberrypi|rpi\d*|pi\d*"
    r"|beaglebone|bbb|devkit|devboard|board|rig|bench|hil)(?:$|[.:_\d-])"
)
_SERVICE_TOOLS = frozenset({
    "systemctl", "service", "rc-service", "supervisorctl", "pm2", "docker", "podman", "docker-compose",
    "nginx", "apachectl", "apache2ctl", "httpd", "sv", "initctl", "launchctl",
})  # fmt: skip
_SERVICE_VERBS = frozenset({"restart", "stop", "reload", "kill", "disable", "mask", "down", "try-restart", "unload"})


def _unit(word: str) -> str:
    """A systemd unit's name without its type suffix (``apt-daily.timer`` → ``apt-daily``)."""
    return word.removesuffix(".service").removesuffix(".timer")


def _filtered_listing(cmd: Cmd) -> bool:
    """``docker rm -f $(docker ps -aq --filter label=…)``, ``docker rmi $(docker images -q -f
    dangling=true)``: the removed list is narrowed by docker's own filter to the project's (or
    dangling) containers and images, not every one on the machine."""
    subs = [sub for word in cmd.args for sub in word.subs()]
    return bool(subs) and all(_DOCKER_FILTERED.search(sub.source) and "|" not in sub.source for sub in subs)


_DOCKER_FILTERED = lazy_compile(
    r"\b(?:docker|podman)\s+(?:container\s+ls|ps|images|image\s+ls)\b.*\s(?:--filter|-f)[\s=]\S"
)


def _on_production_host(cmd: Cmd) -> bool:
    """A command run over ``ssh`` on a host whose name says production (``prod-1``,
    ``web-2.prod.example.internal``, ``deploy@live-db``)."""
    return cmd.origin.startswith("ssh ") and _PROD_HOST.search(cmd.origin[4:].rsplit("@", 1)[-1]) is not None


def _changes_service(name: str, lits: list[str]) -> bool:
    """Stopping, restarting or reloading a running service (or killing processes)."""
    if name in ("kill", "pkill", "killall"):
        return True
    if name in ("nginx", "apachectl", "apache2ctl", "httpd") and "-s" in lits:
        return True
    return name in _SERVICE_TOOLS and bool(_SERVICE_VERBS & set(lits))


def _iac_ops(lits: list[str]) -> list[str]:
    """The operands of an infrastructure-as-code command (``terraform -chdir=infra/prod destroy``
    → ``["destroy"]``): global options such as -chdir come before the subcommand."""
    return [a for a in lits if not a.startswith("-")]


def _iac_destroys(name: str, lits: list[str]) -> bool:
    """``terraform destroy``, ``terraform apply -destroy`` (not ``plan -destroy``, which only
    shows it), ``terragrunt run-all destroy``, ``pulumi destroy``, ``cdk destroy``, ``serverless
    remove``."""
    if name not in _IAC:
        return False
    ops = _iac_ops(lits)
    verb = next((a for a in ops if a not in ("run-all", "run", "--")), "")
    if name in ("serverless", "sls"):
        return verb == "remove"
    if verb == "apply":
        return "-destroy" in lits or "--destroy" in lits
    return verb == "destroy"


def _unattended(name: str, lits: list[str]) -> bool:
    """The tool's flag for skipping its own confirmation."""
    flags = {"-auto-approve", "--auto-approve", "-auto-approve=true", "--terragrunt-non-interactive", "--force"}
    if name == "pulumi":
        flags |= {"--yes", "-y", "--skip-preview"}
    if name in ("cdk", "cdktf"):
        flags |= {"-f", "--auto-approve"}
    return bool(flags & set(lits))


# Namespaces made for one pull request or a throwaway environment.
_PREVIEW = lazy_compile(
    r"(?i)(?:^|[-_.])(?:pr|preview|review|feature|feat|branch|ephemeral|tmp|temp|sandbox|ci|test)(?:$|[-_.\d])"
)


PREVIEW_NAME = _PREVIEW  # shared with the data family (a preview app or database branch)


def _preview_names(args: list[str]) -> bool:
    names = [a for a in args if not a.startswith("-")]
    return bool(names) and all(_PREVIEW.search(n) for n in names)


def _recreated_pods(name: str, rest: list[str]) -> bool:
    """``kubectl delete pod NAME`` (or ``-l app=web``): pods, which their deployment recreates,
    and named jobs (finished work); not ``--all``, nor pods by an empty selector."""
    targets: list[str] = []
    skip = False
    for a in rest:  # operands, past the values of -n/--context/-l …
        if skip or a.startswith("-"):
            skip = not skip and a in (_KUBE_TARGET | {"-l", "--selector", "-f", "--filename", "-o", "--grace-period"})
            continue
        targets.append(a)
    if targets and all(re.fullmatch(r"(?:pods?|po|jobs?)/\S+", a) for a in targets):
        kind, names = ["pod"], targets  # kubectl delete pod/web-0 job/migrate-41
    else:
        kind, names = targets[:1], targets[1:]
    selector = any(a in ("-l", "--selector") or a.startswith(("--selector=", "-l=")) for a in rest)
    pods = kind in (["pod"], ["pods"], ["po"]) and (bool(names) or selector)
    jobs = kind in (["job"], ["jobs"]) and bool(names)
    return (
        name == "kubectl" and (pods or jobs) and not {"--all", "--field-selector", "-A", "--all-namespaces"} & set(rest)
    )


def _kube_verb(lits: list[str]) -> str:
    """The first operand of a kubectl/helm command line (-n/--context before it take a value)."""
    skip = False
    for lit in lits:
        if skip or lit.startswith("-"):
            skip = not skip and lit in _KUBE_TARGET
            continue
        return lit
    return ""


def option_values(words: list[str], names: Collection[str]) -> list[str]:
    """Values of ``--name VALUE`` and ``--name=VALUE`` options."""
    got: list[str] = []
    for i, word in enumerate(words):
        if word in names and i + 1 < len(words):
            got.append(words[i + 1])
        elif "=" in word and word.partition("=")[0] in names:
            got.append(word.partition("=")[2])
    return got


def _kube_target_prod(lits: list[str]) -> bool:
    """Whether a -n/--namespace/--context/--kube-context value names production."""
    return any(_PROD_NAME.search(value) for value in option_values(lits, _KUBE_TARGET))


def _kube_target_named(lits: list[str]) -> bool:
    """Whether a namespace or context is named (without one, the current context decides, and
    that may be production)."""
    return any(lit.partition("=")[0] in _KUBE_TARGET for lit in lits)


_KUBE_CHANGES = {
    "kubectl": frozenset(
        {
            "apply",
            "create",
            "replace",
            "patch",
            "edit",
            "scale",
            "set",
            "rollout",
            "label",
            "annotate",
            "drain",
            "cordon",
            "taint",
        }
    ),
    "helm": frozenset({"install", "upgrade", "rollback"}),
}
_KUBE_TARGET = frozenset({"-n", "--namespace", "--context", "--kube-context", "--cluster"})
_PROD_NAME = lazy_compile(r"(?i)(?:^|[-_.])(?:prod|production|live)(?:$|[-_.])")


def _changes_production_cluster(name: str, lits: list[str]) -> bool:
    """``kubectl apply -f k8s/ -n production``, ``helm upgrade api ./chart --kube-context prod``:
    a change whose namespace or context names production (reads such as get/logs pass)."""
    return name in _KUBE_CHANGES and _kube_verb(lits) in _KUBE_CHANGES[name] and _kube_target_prod(lits)


# Hosting CLIs: (program names, the operand that deploys, options naming the target).
_DEPLOYS: list[tuple[frozenset[str], frozenset[str], frozenset[str]]] = [
    (frozenset({"firebase"}), frozenset({"deploy"}), frozenset({"--project", "-P"})),
    (frozenset({"fly", "flyctl"}), frozenset({"deploy"}), frozenset({"-a", "--app", "-c", "--config"})),
    (frozenset({"wrangler"}), frozenset({"deploy", "publish"}), frozenset({"--env", "-e", "--name"})),
    (frozenset({"serverless", "sls"}), frozenset({"deploy"}), frozenset({"--stage", "-s"})),
    (frozenset({"gcloud"}), frozenset({"deploy"}), frozenset({"--project"})),
    (frozenset({"railway"}), frozenset({"up", "redeploy"}), frozenset({"--environment", "-e"})),
    (frozenset({"eas"}), frozenset({"update"}), frozenset({"--branch", "--channel"})),
]


def _deploys_to_production(name: str, lits: list[str]) -> bool:
    """``firebase deploy --project acme-prod``, ``vercel --prod``, ``netlify deploy --prod``,
    ``fly deploy -a api-prod``, ``wrangler deploy --env production``, ``sls deploy --stage prod``,
    ``eas update --branch production``: a release that users get at once. Previews, staging and
    dev targets (and netlify's default draft deploy) pass."""
    if name == "vercel":
        target = lits[lits.index("--target") + 1] if "--target" in lits[:-1] else ""
        return "--prod" in lits or "--target=production" in lits or target == "production"
    if name == "netlify":
        return [a for a in lits if not a.startswith("-")][:1] == ["deploy"] and "--prod" in lits
    for names, verbs, options in _DEPLOYS:
        if name not in names or not verbs & set(a for a in lits[:3] if not a.startswith("-")):
            continue
        if any(_PROD_NAME.search(value) for value in option_values(lits, options)):
            return True
    return False


def production_host(cmd: Cmd) -> bool:
    """A database client pointed at a production server: its host, URL, connection string or
    service name says so (``-h prod-db.internal``, ``postgres://…@db.production…``,
    ``--host=live-db``, ``Server=sql-prod;Database=…``)."""
    for word in cmd.args:
        for value in cmd.values(word) or [word.text]:
            # ; and , end a name in ADO/JDBC connection strings: Server=sql-prod;Database=…
            if re.search(r"(?i)(?:^|[@/.=_-])(?:prod|production|live)(?:$|[.:/_;,-])", value):
                return True
    return False


_CLOUD_CLIS = frozenset({"gcloud", "aws", "az", "doctl", "eksctl", "linode-cli", "hcloud", "scw", "oci", "ibmcloud"})
_CLOUD_DELETES = lazy_compile(r"delete(?:-.+)?|terminate-instances?|terminate|destroy")
# Deletes of one item inside a resource (an object, a queue message, a tag): asked even on production.
_CLOUD_ITEM_DELETES = lazy_compile(
    r"delete-(?:objects?|item|message(?:-batch)?|tags?|images?|alarms?|log-stream|record)"
)


def _public_data(name: str, lits: list[str]) -> str:
    """A bucket or container opened to everyone: ``aws s3api put-bucket-acl --acl public-read``,
    ``gsutil iam ch allUsers:…``, ``az storage container set-permission --public-access``, the
    public-access block removed. Uploading single public objects (a static site) is left alone."""
    joined = " ".join(lits)
    if (
        name == "aws"
        and lits[:1] == ["s3api"]
        and (
            (lits[1:2] == ["put-bucket-acl"] and re.search(r"public-read|authenticated-read", joined))
            or lits[1:2] == ["delete-public-access-block"]
            or (lits[1:2] == ["put-public-access-block"] and re.search(r"(?i)BlockPublic\w+=false", joined))
        )
    ):
        return "opens an S3 bucket to the public"
    if name in ("gsutil", "gcloud") and re.search(r"\ballUsers\b|\ballAuthenticatedUsers\b", joined):
        return "grants everyone on the internet access to a Cloud Storage bucket"
    if name == "az" and "--public-access" in lits and not re.search(r"--public-access[= ]off", joined):
        return "opens a storage container to anonymous reads"
    return ""


def _cloud_delete(name: str, lits: list[str]) -> bool:
    """``gcloud projects delete``, ``az group delete``, ``aws organizations close-account``:
    the whole container of cloud resources goes at once."""
    ops = [a for a in lits if not a.startswith("-")]
    return (
        (name == "gcloud" and ops[:2] == ["projects", "delete"])
        or (name == "az" and ops[:2] == ["group", "delete"])
        or (name == "aws" and ops[:2] in (["organizations", "close-account"], ["account", "close-account"]))
    )


def rule_warn_tools(cmd: Cmd, found: list[Finding]) -> None:
    """Infrastructure, container, cloud and publishing tools: unattended destruction denied,
    destructive-but-sometimes-legitimate commands asked."""
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    ask = ""
    unattended = _destroys_unattended(name, lits)
    if unattended:
        found.append(("deny", f"`{cmd.display}` {unattended}"))
        return
    escape = _container_escape(name, lits)
    if escape:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {escape}, so the container's command acts on the host itself. Mount "
                'only the project folder (-v "$PWD":/src), read-only where possible.',
            )
        )
        return
    if name in ("docker", "podman"):
        if lits[:2] == ["image", "prune"] and not ({"-a", "--all"} & set(lits)):
            pass  # dangling images only: layers no tag or container refers to
        elif "prune" in lits:
            ask = "removes Docker containers/images/volumes/networks in bulk"
        elif lits[:2] in (["volume", "rm"], ["volume", "remove"]):
            ask = "deletes Docker volumes (their data is lost)"
        elif lits[:1] == ["compose"] and "down" in lits and ("-v" in lits or "--volumes" in lits):
            ask = "deletes the compose project's volumes (their data is lost)"
        elif lits[:1] in (["rm"], ["rmi"]) and any(w.subs() for w in cmd.args) and not _filtered_listing(cmd):
            ask = "removes a computed list of containers/images"
    elif name == "docker-compose" and "down" in lits and ("-v" in lits or "--volumes" in lits):
        ask = "deletes the compose project's volumes (their data is lost)"
    elif name == "kubectl" and _kube_verb(lits) == "delete":
        at = lits.index("delete")
        if _recreated_pods(name, lits[at + 1 :]) and _kube_target_named(lits) and not _kube_target_prod(lits):
            pass  # settled: a named pod on staging is recreated by its deployment
        elif _recreated_pods(name, lits[at + 1 :]):
            ask = "deletes production pods (their deployment recreates them)"
        else:
            ask = "deletes Kubernetes resources"
    elif name == "pm2" and lits[:1] == ["startup"]:
        ask = "installs a boot-time service that starts these processes automatically (persistence)"
    elif _cloud_delete(name, lits):
        found.append(
            (
                "deny",
                f"`{cmd.display}` deletes a whole cloud project, account or resource group with "
                "everything in it. Ask the user to run it from the cloud console.",
            )
        )
        return
    elif _public_data(name, lits):
        found.append(
            (
                "deny",
                f"`{cmd.display}` {_public_data(name, lits)}; anything stored there can then be read "
                "by anyone. Share single objects with signed URLs instead, or ask the user.",
            )
        )
        return
    elif name in _CLOUD_CLIS and any(_CLOUD_DELETES.fullmatch(a) for a in lits[:4]):
        single_item = any(_CLOUD_ITEM_DELETES.fullmatch(a) for a in lits[:4])
        if not single_item and any(_PROD_VALUE.search(a) or _PROD_HOST.search(a) for a in lits):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes production cloud resources. Ask the user to run it; "
                    "delete a staging or preview resource instead.",
                )
            )
            return
        if (
            single_item
            and any(_NON_PRODUCTION_HOST.search(a) for a in lits)
            and not any(_PROD_VALUE.search(a) or _PROD_HOST.search(a) for a in lits)
        ):
            return  # one keyed item of a staging/dev/test resource: ordinary cleanup
        ask = "deletes cloud resources"
    elif name == "kubectl" and _kube_verb(lits) == "create" and {"clusterrolebinding", "rolebinding"} & set(lits):
        if any(re.search(r"system:(?:anonymous|unauthenticated)", a) for a in lits):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` gives unauthenticated users rights in the cluster. Bind the role to "
                    "one named service account instead, or ask the user.",
                )
            )
            return
        if any("cluster-admin" in a for a in lits):
            ask = "grants cluster-admin (every right in the cluster)"
    elif name in ("terraform", "tofu") and (
        _iac_ops(lits)[:2] in (["state", "rm"], ["state", "push"], ["workspace", "delete"])
    ):
        ask = "changes Terraform state by hand (resources it forgets are no longer managed or destroyed)"
    elif name == "helm" and lits[:1] in (["uninstall"], ["delete"]):
        ask = "uninstalls a Helm release"
    elif name == "argocd" and _argocd_ops(lits)[:2] in (["app", "delete"], ["appset", "delete"], ["proj", "delete"]):
        ask = "deletes an Argo CD application (with --cascade, every resource it deployed)"
    elif name == "argocd" and _argocd_ops(lits)[:2] == ["app", "sync"] and "--prune" in lits:
        if any(_PROD_NAME.search(a) for a in _argocd_ops(lits)[2:]):
            ask = "syncs a production application with --prune (deletes what git no longer lists)"
    elif _changes_production_cluster(name, lits):
        ask = "changes a production cluster (try it on staging first)"
    elif _deploys_to_production(name, lits) and not _rehearsal(lits):
        ask = "deploys to production, where users get it at once (deploy to staging or a preview first)"
    elif _iac_destroys(name, lits):
        ask = "destroys infrastructure"
    elif (
        name in _IAC
        and {"apply", "up", "deploy"} & set(_iac_ops(lits)[:2])
        and _unattended(name, lits)
        and any(_PROD_VALUE.search(a) for a in lits)
    ):
        ask = "changes production infrastructure without showing the plan first"
    elif name == "git" and _hijacks_every_repository(cmd):
        found.append(
            (
                "deny",
                f"`{cmd.display}` {_hijacks_every_repository(cmd)}. Set it for this repository only "
                "(without --global), or ask the user.",
            )
        )
        return
    elif (
        name == "git"
        and _writes_user_git_config(cmd)
        and any(
            re.match(r"(?i)(core\.(hookspath|fsmonitor|sshcommand|pager|editor)|alias\.|credential\.|url\.)", a)
            for a in lits
        )
    ):
        ask = "changes which commands git runs in every repository of the user"
    elif name == "git" and _writes_user_git_config(cmd):
        ask = (
            "writes the user's git configuration outside the project, for every repository "
            "(without --global, `git config` sets it for this repository only)"
        )
    elif name == "launchctl" and lits[:1] and lits[0] in ("load", "bootstrap", "enable"):
        ask = "registers a job that starts automatically from now on (persistence)"
    elif (
        name == "systemctl" and {"enable", "link"} & set(lits) and "--user" not in lits and any("/" in a for a in lits)
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` installs a unit file from a path as a system service: whatever it runs "
                "starts as root at every boot (persistence). Ask the user to install services.",
            )
        )
        return
    elif (
        name == "systemctl"
        and {"enable", "link"} & set(lits)
        # turning the firewall or automatic security updates on is the opposite of a risk
        and not all(
            _unit(a) in SECURITY_SERVICES for a in lits if not a.startswith("-") and a not in ("enable", "link")
        )
    ):
        ask = "makes a service start automatically from now on (persistence)"
    elif name == "brew" and lits[:1] == ["services"] and {"start", "restart"} & set(lits[1:2]):
        ask = "registers a launch agent that starts the service at every login (persistence)"
    elif name == "heroku" and lits[:1] and lits[0] in ("pg:reset", "pg:killall", "apps:destroy", "addons:destroy"):
        found.append(("deny", f"`{cmd.display}` destroys a hosted database or app. Ask the user to run it."))
        return
    elif not _rehearsal(lits) and (
        (name in ("npm", "pnpm", "yarn", "bun") and lits[:1] == ["publish"])
        or (name == "twine" and lits[:1] == ["upload"])
        or (name in ("cargo", "poetry", "uv", "flit", "hatch", "gem") and lits[:1] in (["publish"], ["push"]))
        or (name == "mvn" and "deploy" in lits)
        or _publishes_release(name, lits)
    ):
        ask = "publishes a package version to a public registry, which cannot be taken back"
    elif not _rehearsal(lits) and (
        (name in ("npm", "pnpm", "yarn") and lits[:1] == ["unpublish"]) or (name == "gem" and lits[:1] == ["yank"])
    ):
        ask = "removes a published package version from the public registry (every project depending on it breaks)"
    elif name == "truncate" and any(a in ("-s0", "--size=0") for a in lits) and len(lits) > 3:
        ask = "empties many files"
    elif _publishes_build(name, lits):
        ask = "uploads a build to a store, testers or a package repository"
    elif name in ("certbot", "certbot-auto") and [a for a in lits if not a.startswith("-")][:1] in (
        ["delete"],
        ["revoke"],
    ):
        ask = "revokes or deletes a TLS certificate (a server still configured with it fails to start)"
    elif name in ("scancel", "qdel", "bkill"):
        mass = _cancels_jobs(cmd, lits)
        if mass == "others":
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` cancels other users' jobs on a shared cluster. Cancel your own jobs "
                    "by id, or ask the user.",
                )
            )
            return
        if mass == "mine":
            ask = "cancels every one of your cluster jobs (their progress is lost)"
    if (
        ask
        and name in ("docker", "podman", "docker-compose")
        and (production(cmd) or _on_production_host(cmd) or any(_PROD_VALUE.search(a) for a in lits))
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` {ask} on a production host or project. Ask the user to run it; "
                "clean up a development environment instead.",
            )
        )
        return
    if not ask and _changes_service(name, lits) and cmd.origin.startswith("ssh "):
        if _on_production_host(cmd):
            ask = "stops or restarts a service on a production host (users notice)"
        elif (
            "sudo" in cmd.wrappers
            and name in ("systemctl", "service", "rc-service", "supervisorctl")
            and not _NON_PRODUCTION_HOST.search(cmd.origin[4:].rsplit("@", 1)[-1])
            and not _DEVICE_HOST.search(cmd.origin[4:])
        ):
            # ssh host 'sudo systemctl restart api': a system service on a server others use (a
            # deploy user restarting its own app without sudo, or a staging/dev host, is routine).
            ask = "stops or restarts a system service on another machine, which its users notice"
    if ask:
        found.append(("ask", f"`{cmd.display}` {ask}; confirm this is intended."))


_ANSIBLE_VALUE = frozenset({
    "-i", "--inventory", "-m", "--module-name", "-a", "--args", "-u", "--user", "-e", "--extra-vars",
    "-f", "--forks", "-l", "--limit", "-B", "-P", "--become-user", "-c", "--connection", "-T", "--timeout",
})  # fmt: skip
# Modules that grant logins or sudo: access for others on every host.
_ACCESS_MODULES = frozenset({"authorized_key", "ansible.posix.authorized_key", "user", "ansible.builtin.user"})
_SHELL_MODULES = frozenset({"shell", "command", "raw", "ansible.builtin.shell", "ansible.builtin.command"})


def _fleet_command(cmd: Cmd) -> tuple[str, str, str] | None:
    """(where, module, text) of a command sent to other machines: ``ansible HOSTS -m shell -a
    TEXT``, ``salt 'TARGET' cmd.run TEXT``, ``pssh -h hosts TEXT``, ``gcloud compute ssh VM
    --command TEXT``, ``az vm run-command invoke --scripts TEXT``, ``heroku run TEXT -a APP``,
    ``fly ssh console -C TEXT``."""
    lits = [w.literal() or w.text for w in cmd.args]
    if cmd.name == "ansible":
        _flags, positionals, values = _shell.split_options(cmd.args, _ANSIBLE_VALUE)
        module = (
            " ".join(w.literal() or w.text for w in values.get("m", []) + values.get("module-name", [])) or "command"
        )
        text = " ".join(" ".join(cmd.values(w) or [w.text]) for w in values.get("a", []) + values.get("args", []))
        inventory = " ".join(w.literal() or w.text for w in values.get("i", []) + values.get("inventory", []))
        hosts = " ".join(w.literal() or w.text for w in positionals)
        return f"{hosts} {inventory}".strip(), module, text
    if cmd.name in ("salt", "salt-ssh") and "cmd.run" in lits:
        at = lits.index("cmd.run")
        return " ".join(lits[:at]), "shell", " ".join(lits[at + 1 : at + 2])
    if cmd.name in ("pssh", "parallel-ssh", "pdsh", "clush"):
        _flags, positionals, values = _shell.split_options(
            cmd.args, frozenset({"-h", "-H", "-w", "-g", "-l", "-p", "-t", "-o", "-e", "-x", "-O"})
        )
        hosts = " ".join(w.literal() or w.text for k in ("h", "H", "w", "g") for w in values.get(k, []))
        return hosts, "shell", " ".join(w.literal() or w.text for w in positionals)
    if cmd.name == "heroku" and lits[:1] in (["run"], ["run:detached"]):
        # heroku run CMD -a APP: CMD runs in a one-off dyno of the app, against its database.
        words, app = [], []
        rest = lits[1:]
        i = 0
        while i < len(rest):
            if rest[i] in ("-a", "--app", "-r", "--remote", "-s", "--size", "-e", "--env") and i + 1 < len(rest):
                app += [rest[i + 1]] if rest[i] in ("-a", "--app", "-r", "--remote") else []
                i += 2
                continue
            if rest[i].startswith(("--app=", "--remote=", "--size=", "--env=")):
                app += [rest[i].partition("=")[2]] if rest[i].startswith(("--app=", "--remote=")) else []
            else:
                words.append(rest[i])
            i += 1
        return " ".join(app) or "the app", "shell", _command_line(words)
    if cmd.name == "adb":
        # adb [-s SERIAL] shell [run-as PACKAGE] CMD: CMD runs on the device (as the app with run-as).
        _flags, positionals, _values = _shell.split_options(
            cmd.args, frozenset({"-s", "-t", "-H", "-P", "-L"}), stop_at_first=True
        )
        if not positionals or positionals[0].literal() != "shell":
            return None
        rest = lits[lits.index("shell") + 1 :]
        if rest[:1] == ["run-as"] and len(rest) > 2:
            rest = rest[2:]
        return "the device", "shell", _command_line(rest)
    if cmd.name in ("fly", "flyctl") and lits[:2] == ["ssh", "console"]:
        texts = [a.partition("=")[2] for a in lits if a.startswith(("--command=", "-C="))]
        texts += [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-C", "--command")]
        apps = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-a", "--app")]
        return " ".join(apps) or "the app", "shell", " ".join(texts)
    if cmd.name == "gcloud" and lits[:2] == ["compute", "ssh"]:
        texts = [a.partition("=")[2] for a in lits if a.startswith("--command=")]
        texts += [lits[i + 1] for i, a in enumerate(lits[:-1]) if a == "--command"]
        return (lits[2] if len(lits) > 2 else ""), "shell", " ".join(texts)
    if cmd.name == "az" and lits[:3] == ["vm", "run-command", "invoke"]:
        texts = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a == "--scripts"]
        return " ".join(lits[3:]), "shell", " ".join(texts)
    return None


def _command_line(words: list[str]) -> str:
    """The command line a remote runner (adb shell, heroku run) is given: one word is a whole
    line (``heroku run 'rails runner "X"'``); several are joined, a word with blanks kept as one
    (``sqlite3 db "DELETE FROM notes"``), as the writer meant."""
    if len(words) == 1:
        return words[0]
    return " ".join(w if re.fullmatch(r"[\w@%+=:,./-]+", w) else "'" + w.replace("'", "'\\''") + "'" for w in words)


# Lanes and actions that publish to the stores' users. Builds for testers (beta, alpha and internal
# lanes: TestFlight, the Play internal track) reach no public store and are routine.
_FASTLANE_UPLOADS = lazy_compile(
    r"(?i)^(?:release|deploy|production|store|upload\w*|submit\w*|deliver|supply|appstore|playstore)$"
)


# A publish that reaches no public registry: a dry run, the test index, a registry on this machine.
_REHEARSAL_TARGET = lazy_compile(r"(?i)^testpypi$|test\.pypi\.org|//(?:localhost|127\.0\.0\.1|\[::1\])[:/]")


def _rehearsal(lits: list[str]) -> bool:
    """``cargo publish --dry-run``, ``twine upload -r testpypi``, ``npm publish --registry
    http://localhost:4873``: the publishing command rehearses, nothing public changes."""
    return "--dry-run" in lits or any(_REHEARSAL_TARGET.search(a.partition("=")[2] or a) for a in lits)


# Other ecosystems' publish commands (the words after the program): pub.dev, Hex, CocoaPods
# trunk, NuGet, Anaconda, JSR, the VS Code Marketplace / Open VSX, itch.io's butler.
_RELEASE_WORDS: dict[str, tuple[str, ...]] = {
    "dart": ("pub", "publish"),
    "flutter": ("pub", "publish"),
    "mix": ("hex.publish",),
    "pod": ("trunk", "push"),
    "dotnet": ("nuget", "push"),
    "nuget": ("push",),
    "anaconda": ("upload",),
    "deno": ("publish",),
    "jsr": ("publish",),
    "vsce": ("publish",),
    "ovsx": ("publish",),
    "butler": ("push",),
}


def _publishes_release(name: str, lits: list[str]) -> bool:
    """``dart pub publish``, ``pod trunk push X.podspec``, ``dotnet nuget push pkg.nupkg``,
    ``npx @vscode/vsce publish``, ``butler push build/ user/game:channel``: a version published
    where users get it at once, like ``npm publish`` (dry runs are rehearsals)."""
    words = _RELEASE_WORDS.get(name.rsplit("/", 1)[-1])
    ops = [a for a in lits if not a.startswith("-")]
    if words is None or tuple(ops[: len(words)]) != words:
        return False
    # dotnet nuget push pkg --source ./feed: a folder feed on this machine, not a public registry.
    sources = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-s", "--source")]
    return not sources or any(src.startswith(("http://", "https://")) for src in sources)


def _publishes_build(name: str, lits: list[str]) -> bool:
    """``fastlane ios beta``, ``fastlane deliver``, ``./gradlew publish``: a build leaves for a
    store, testers or a package repository (the lane's text is not visible here)."""
    ops = [a for a in lits if not a.startswith("-") and ":" not in a]
    if name == "fastlane":
        # fastlane [ios|android|mac] LANE: only the lane (or action) decides; "match appstore" syncs
        # the App Store certificates, its second word is the type, not an upload.
        lane = ops[1:2] if ops[:1] in (["ios"], ["android"], ["mac"]) else ops[:1]
        return any(_FASTLANE_UPLOADS.match(a) for a in lane)
    if name in ("gradle", "gradlew"):
        return any(re.fullmatch(r"(?:\S+:)?publish\w*", a) and "Local" not in a for a in lits)
    return name == "xcrun" and "altool" in lits and "--upload-app" in lits


def _cancels_jobs(cmd: Cmd, lits: list[str]) -> str:
    """What a batch-scheduler cancel hits: "others" (any user's jobs: a filter run as root,
    ``qdel all``), "mine" (all your jobs: ``scancel -u $USER``, ``scancel -p gpu``, ``bkill 0``)
    or "" (jobs named by id)."""
    words = [w.literal() or w.text for w in cmd.args]
    own = re.compile(r"\$\{?(?:USER|LOGNAME)\}?|\$\(whoami\)|\$\(id -un\)")
    mine = "--me" in words or any(
        (a in ("-u", "--user") and own.fullmatch(b) is not None)
        or (a.startswith("--user=") and own.fullmatch(a.partition("=")[2]) is not None)
        for a, b in itertools.pairwise([*words, ""])
    )
    ids = [a for a in lits if re.fullmatch(r"\d+(?:[._]\d+)?", a)]
    if cmd.name == "qdel":
        return "others" if "all" in lits else ""
    if cmd.name == "bkill":
        return (
            "mine" if "0" in lits and not {"-u"} & set(lits) else ("others" if "-u" in lits and "all" in lits else "")
        )
    if ids and not mine:
        return ""
    if not words:
        return ""
    # Without root a user's cancel only reaches their own jobs; as root a filter reaches everyone's.
    return "others" if "sudo" in cmd.wrappers and not mine else "mine"


def _program_and_args(text: str) -> tuple[str, list[str]]:
    """The program and arguments of a simple command line, past ``sudo``."""
    words = text.split()
    while words and words[0] in ("sudo", "doas"):
        words = words[1:]
    return (words[0].rsplit("/", 1)[-1], words[1:]) if words else ("", [])


def rule_fleet(cmd: Cmd, check: Check, found: list[Finding]) -> None:
    """A command sent to many hosts (ansible ad-hoc, salt, pssh, cloud run-command) is judged
    like the same command run here (``check``: the hook's own dispatch), on remote hosts; a
    module that grants logins denied; production fleets asked for service restarts."""
    got = _fleet_command(cmd)
    if got is None:
        return
    where, module, text = got
    prod = _PROD_HOST.search(where) is not None or _PROD_VALUE.search(where) is not None
    if module in _ACCESS_MODULES and re.search(r"\bstate=absent\b", text):
        if "user" in module:
            found.append(("ask", f"`{cmd.display}` removes an account on {where or 'every host'}; confirm."))
        return  # taking a key away grants nothing
    if module in _ACCESS_MODULES:
        found.append(
            (
                "deny",
                f"`{cmd.display}` adds logins or keys on every host of {where or 'the inventory'} "
                "(access for others). Ask the user to change who may log in.",
            )
        )
        return
    if module not in _SHELL_MODULES or not text.strip():
        return
    worst = None
    for decision, reason in check(text, cmd.ctx.child(remote=True)):
        if decision == "deny" or (decision == "ask" and worst is None):
            worst = (decision, reason.split(": ", 1)[-1])
        if decision == "deny":
            break
    if worst is not None and (worst[0] == "deny" or prod):
        found.append(
            (
                "deny",
                f"`{cmd.display}` runs remotely on {where or 'every host of the inventory'}: {worst[1][:200]}"
                + ("" if worst[1].rstrip().endswith(".") else "."),
            )
        )
    elif worst is not None:
        found.append(
            ("ask", f"`{cmd.display}` runs remotely on {where or 'every host of the inventory'}: {worst[1][:200]}")
        )
    elif prod and _changes_service(*_program_and_args(text)):
        found.append(("ask", f"`{cmd.display}` changes services on production hosts; confirm this is intended."))
