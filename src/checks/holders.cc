// Recognising what holds GPU memory. Servers announce themselves in their
// command line or process title: SGLang's schedulers call setproctitle
// ("sglang::scheduler_TP3"), vLLM's workers ("VLLM::Worker_TP0") and its
// CLI ("vllm serve"), TGI's launcher and shards ("text-generation-launcher",
// "text-generation-server"), Triton ("tritonserver"), TensorRT-LLM
// ("trtllm-serve"), Ollama ("ollama serve" / "ollama runner"), llama.cpp
// ("llama-server"), and training launchers torchrun / deepspeed, whose
// workers carry "torch.distributed.run" or "deepspeed" in their argv.
#include "checks/holders.h"

#include <algorithm>
#include <cctype>

namespace gt {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

struct Pattern {
  const char* needle;  // lowercase substring of name + " " + cmdline
  const char* label;
};

// Order matters: more specific first (trtllm before triton, tgi before torch).
constexpr Pattern kPatterns[] = {
    {"sglang", "SGLang"},
    {"vllm", "vLLM"},
    {"text-generation-launcher", "TGI"},
    {"text-generation-server", "TGI"},
    {"text_generation_server", "TGI"},
    {"trtllm", "TensorRT-LLM"},
    {"tensorrt_llm", "TensorRT-LLM"},
    {"tritonserver", "Triton"},
    {"ollama", "Ollama"},
    {"llama-server", "llama.cpp server"},
    {"llama.cpp", "llama.cpp server"},
    {"torchrun", "torchrun"},
    {"torch.distributed.run", "torchrun"},
    {"torch.distributed.launch", "torchrun"},
    {"deepspeed", "DeepSpeed"},
};

}  // namespace

std::optional<std::string> recognise_holder(const GpuProcess& p) {
  const std::string text = lower(p.name.value_or("") + " " + p.cmdline.value_or(""));
  for (const Pattern& pat : kPatterns)
    if (text.find(pat.needle) != std::string::npos) return std::string(pat.label);
  return std::nullopt;
}

std::string holder_label(const GpuProcess& p) {
  if (auto r = recognise_holder(p)) return *r;
  if (p.name) return *p.name;
  return "PID " + std::to_string(p.pid);
}

StopCommands stop_commands(const GpuProcess& p) {
  StopCommands c;
  const std::string pid = std::to_string(p.pid);
  if (!p.owner) {
    c.owner_text = "no owner found (not in a unit, container or job)";
    c.stop = {"kill " + pid + "   # SIGTERM; the server's parent may hold more GPUs"};
    return c;
  }
  const ProcessOwner& o = *p.owner;
  if (o.kind == "systemd-unit") {
    c.owner_text = "systemd unit " + o.name;
    c.stop = {"sudo systemctl stop " + o.name};
    c.disable = {"sudo systemctl disable " + o.name};
  } else if (o.kind == "docker") {
    const std::string id = o.name.substr(0, 12);
    c.owner_text = "docker container " + id;
    c.stop = {"docker stop " + id};
    c.disable = {"docker update --restart=no " + id};
  } else if (o.kind == "podman") {
    const std::string id = o.name.substr(0, 12);
    c.owner_text = "podman container " + id;
    c.stop = {"podman stop " + id};
    c.disable = {"podman update --restart=no " + id};
  } else if (o.kind == "containerd" || o.kind == "cri-o") {
    c.owner_text = o.kind + " container " + o.name.substr(0, 12);
    c.stop = {"sudo crictl stop " + o.name.substr(0, 12)};
  } else if (o.kind == "kubernetes-pod") {
    c.owner_text = "Kubernetes pod " + o.name;
    c.stop = {
        "kubectl get pods -A -o wide --field-selector spec.nodeName=$(hostname) | grep -i "
        "<name>   # find the pod with UID " +
            o.name,
        "kubectl scale deployment/<name> -n <namespace> --replicas=0"};
  } else if (o.kind == "slurm-job") {
    c.owner_text = "Slurm job " + o.name;
    c.stop = {"scancel " + o.name};
  } else {
    c.owner_text = o.kind + " " + o.name;
    c.stop = {"kill " + pid};
  }
  return c;
}

}  // namespace gt
