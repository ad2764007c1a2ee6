"""The CustomResourceDefinition lesson: the API server learns a kind, defaults and checks its objects by the
schema it was given, and prints them with the columns it was told."""

from __future__ import annotations

from .script import Action, Lesson, Step

CRONTAB_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
    - ct
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec:
                type: string
              image:
                type: string
              replicas:
                type: integer
                minimum: 1
                maximum: 10
                default: 1
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
"""

MY_CRONTAB = """apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
"""

CUSTOM_RESOURCES = Lesson(
    "custom-resources", "19. Extend the API: a CustomResourceDefinition", "19. 扩展 API：CustomResourceDefinition",
    CRONTAB_CRD,
    (
        Step(
            "Kubernetes can learn kinds it was not built with. A CustomResourceDefinition tells the API server "
            "about CronTab, in the group stable.example.com: its names, its schema (cronSpec and image strings, "
            "replicas an integer from 1 to 10, 1 by default) and the columns kubectl get should print. "
            "Apply crontab-crd.yaml.",
            "Kubernetes 可以学会原本没有的资源类型。CustomResourceDefinition（自定义资源定义）告诉 API Server "
            "一个新的类型 CronTab，属于 stable.example.com 组：它的名字、它的模式（cronSpec 和 image 是字符串，"
            "replicas 是 1 到 10 的整数，默认为 1），以及 kubectl get 要显示的列。应用 crontab-crd.yaml。",
            Action("apply", "crontab-crd.yaml", label="Apply crontab-crd.yaml", label_zh="应用 crontab-crd.yaml"),
            question="Which component will act on CronTabs once the definition is stored?",
            question_zh="定义写入之后，哪个组件会处理 CronTab？",
        ),
        Step(
            "Only the API server changes: the definition is stored in etcd (hops 1-3), and from then on the API "
            "server serves /apis/stable.example.com/v1/namespaces/*/crontabs, so kubectl api-resources lists "
            "crontabs (short name ct). The controller manager only registers an APIService "
            "v1.stable.example.com for the new group. No controller reconciles CronTabs until someone writes "
            "one: that is what an operator is.",
            "只有 API Server 变了：定义写入 etcd（第 1-3 步），此后 API Server 提供 "
            "/apis/stable.example.com/v1/namespaces/*/crontabs，所以 kubectl api-resources 会列出 crontabs"
            "（简称 ct）。控制器管理器只为新的组登记一个 APIService v1.stable.example.com。在有人编写控制器之前，"
            "没有任何控制器处理 CronTab：这样的控制器就是 operator。",
        ),
        Step(
            "Create a CronTab, my-new-cron-object, without saying how many replicas it wants.",
            "创建一个 CronTab：my-new-cron-object，不写 replicas。",
            Action("apply", "my-crontab.yaml", label="Apply my-crontab.yaml", label_zh="应用 my-crontab.yaml",
                   manifest=MY_CRONTAB),
            question="What will spec.replicas be once it is stored?",
            question_zh="写入之后 spec.replicas 是多少？",
        ),
        Step(
            "1: the API server filled in the schema's default before writing to etcd, as it fills in a "
            "Deployment's defaults. kubectl get crontabs prints the columns the definition asked for: SPEC, "
            "REPLICAS and AGE.",
            "1：API Server 在写入 etcd 之前填上了模式里的默认值，就像它为 Deployment 填默认值一样。"
            "kubectl get crontabs 显示定义里要求的列：SPEC、REPLICAS 和 AGE。",
        ),
        Step(
            "The schema is a contract the API server enforces: a CronTab asking for replicas: 11 is refused "
            "with 422 (spec.replicas in body should be less than or equal to 10), and a field the schema does "
            "not declare is refused under kubectl's strict validation. Try both in the console.",
            "模式是 API Server 执行的约定：replicas: 11 的 CronTab 会被拒绝，返回 422"
            "（spec.replicas 超过了模式规定的上限 10）；模式里没有声明的字段，"
            "在 kubectl 的严格校验下也会被拒绝。在控制台里试一试。",
        ),
    ),
    follow="CustomResourceDefinition/crontabs.stable.example.com",
)
