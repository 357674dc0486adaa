<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name />
        <message>
            <source>System default</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Summary (lines added and removed)</source>
            <translation>摘要（增加和删除的行数）</translation>
        </message>
        <message>
            <source>Inline diff</source>
            <translation>内联差异</translation>
        </message>
        <message>
            <source>Collapsed (open the card to see it)</source>
            <translation>折叠（打开卡片查看）</translation>
        </message>
        <message>
            <source>(file)</source>
            <translation>（文件）</translation>
        </message>
        <message>
            <source>{path} (new file)</source>
            <translation>{path}（新文件）</translation>
        </message>
        <message>
            <source>… 1 more line — open the card to see it</source>
            <translation>… 还有 1 行 — 展开卡片查看</translation>
        </message>
        <message>
            <source>… {count} more lines — open the card to see them</source>
            <translation>… 还有 {count} 行 — 展开卡片查看</translation>
        </message>
        <message>
            <source>a file</source>
            <translation>一个文件</translation>
        </message>
        <message>
            <source>changed {files}: {added} lines added, {removed} removed</source>
            <translation>修改了 {files}：新增 {added} 行，删除 {removed} 行</translation>
        </message>
        <message>
            <source>Follow the system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>深色</translation>
        </message>
        <message>
            <source>Appearance &amp; startup</source>
            <translation>外观与启动</translation>
        </message>
        <message>
            <source>How the window looks and behaves. These settings belong to this app and are kept in desktop.json.</source>
            <translation>窗口的外观和行为。这些设置属于本应用，保存在 desktop.json 中。</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>Theme: {choice}</source>
            <translation>主题：{choice}</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>The window shows the new language from the next start.</source>
            <translation>新语言将在下次启动时生效。</translation>
        </message>
        <message>
            <source>Chat</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Connecting to the agent…</source>
            <translation>正在连接智能体…</translation>
        </message>
        <message>
            <source>Providers, models, tools and appearance will be set here.</source>
            <translation>服务商、模型、工具和外观将在这里设置。</translation>
        </message>
        <message>
            <source>The agent's skills will be listed here.</source>
            <translation>智能体的技能将在这里列出。</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>记忆</translation>
        </message>
        <message>
            <source>Memory files and the Dream history will be shown here.</source>
            <translation>记忆文件和梦境整理的历史将在这里显示。</translation>
        </message>
        <message>
            <source>Main sections</source>
            <translation>主要栏目</translation>
        </message>
        <message>
            <source>Connection status</source>
            <translation>连接状态</translation>
        </message>
        <message>
            <source>ready — {model}</source>
            <translation>就绪 — {model}</translation>
        </message>
        <message>
            <source>Show file changes as:</source>
            <translation>文件改动显示为：</translation>
        </message>
        <message>
            <source>Show file changes as: {choice}</source>
            <translation>文件改动显示为：{choice}</translation>
        </message>
        <message>
            <source>Window</source>
            <translation>窗口</translation>
        </message>
        <message>
            <source>Closing the window keeps nanobot running in the system tray</source>
            <translation>关闭窗口后 nanobot 继续在系统托盘中运行</translation>
        </message>
        <message>
            <source>Close to tray</source>
            <translation>关闭到托盘</translation>
        </message>
        <message>
            <source>Only where a system tray exists; otherwise closing the window quits.</source>
            <translation>仅在有系统托盘时有效；否则关闭窗口即退出。</translation>
        </message>
        <message>
            <source>Start nanobot Desktop when I log in</source>
            <translation>登录时启动 nanobot Desktop</translation>
        </message>
        <message>
            <source>Start at login</source>
            <translation>登录时启动</translation>
        </message>
        <message>
            <source>Adds {path} (removed again when unticked).</source>
            <translation>将添加 {path}（取消勾选时删除）。</translation>
        </message>
        <message>
            <source>Start at login: cannot change {path} ({error}). Nothing was saved.</source>
            <translation>登录时启动：无法更改 {path}（{error}）。未保存任何内容。</translation>
        </message>
        <message>
            <source>Not saved: {error}</source>
            <translation>未保存：{error}</translation>
        </message>
        <message>
            <source>Saved. The new language shows from the next start.</source>
            <translation>已保存。新语言将在下次启动时生效。</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>已保存。</translation>
        </message>
        <message>
            <source>Not saved: the config file has an error ({error}). Fix the file (it was not changed), then save again.</source>
            <translation>未保存：配置文件有错误（{error}）。请修正该文件（它未被更改），然后再次保存。</translation>
        </message>
        <message>
            <source>Not saved: cannot write the config file ({error}).</source>
            <translation>未保存：无法写入配置文件（{error}）。</translation>
        </message>
        <message>
            <source>{page} settings</source>
            <translation>{page}设置</translation>
        </message>
        <message>
            <source>{page} status</source>
            <translation>{page}状态</translation>
        </message>
        <message>
            <source>Revert</source>
            <translation>还原</translation>
        </message>
        <message>
            <source>Revert {page} settings</source>
            <translation>还原{page}设置</translation>
        </message>
        <message>
            <source>Show the saved values again</source>
            <translation>重新显示已保存的值</translation>
        </message>
        <message>
            <source>Long-term memory: facts and context. Dream keeps it up to date.</source>
            <translation>长期记忆：事实与背景。由梦境整理保持更新。</translation>
        </message>
        <message>
            <source>The assistant's personality, tone and values.</source>
            <translation>助手的个性、语气和价值观。</translation>
        </message>
        <message>
            <source>What the assistant knows about you.</source>
            <translation>助手对你的了解。</translation>
        </message>
        <message>
            <source>Memory files</source>
            <translation>记忆文件</translation>
        </message>
        <message>
            <source>Preview rendered markdown</source>
            <translation>预览渲染后的 Markdown</translation>
        </message>
        <message>
            <source>Reload</source>
            <translation>重新加载</translation>
        </message>
        <message>
            <source>Reload from disk</source>
            <translation>从磁盘重新加载</translation>
        </message>
        <message>
            <source>Discard unsaved edits of this file and read it again</source>
            <translation>放弃此文件未保存的编辑并重新读取</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Save and commit</source>
            <translation>保存并提交</translation>
        </message>
        <message>
            <source>Save the file and record it in the history (Ctrl+S)</source>
            <translation>保存文件并记录到历史中（Ctrl+S）</translation>
        </message>
        <message>
            <source>{file} editor</source>
            <translation>{file} 编辑器</translation>
        </message>
        <message>
            <source>Rendered preview</source>
            <translation>渲染预览</translation>
        </message>
        <message>
            <source>The line was not pinned: {error}</source>
            <translation>未能固定该行：{error}</translation>
        </message>
        <message>
            <source>Pinned “{line}”: Dream will never change or remove it.</source>
            <translation>已固定“{line}”：梦境整理永远不会更改或删除它。</translation>
        </message>
        <message>
            <source>The pin was not removed: {error}</source>
            <translation>未能取消固定：{error}</translation>
        </message>
        <message>
            <source>Unpinned “{line}”.</source>
            <translation>已取消固定“{line}”。</translation>
        </message>
        <message>
            <source>{file} changed on disk since you opened it (for example by Dream). Saving now replaces that change; it stays in the history and can be restored.</source>
            <translation>{file} 在你打开后已在磁盘上被更改（例如被梦境整理）。现在保存会替换那次更改；它仍保留在历史中，可以恢复。</translation>
        </message>
        <message>
            <source>Save anyway</source>
            <translation>仍然保存</translation>
        </message>
        <message>
            <source>Reload (discard my edits)</source>
            <translation>重新加载（放弃我的编辑）</translation>
        </message>
        <message>
            <source>{file} was not saved: {error}. Your text is still in the editor.</source>
            <translation>{file} 未保存：{error}。你的文字仍在编辑器中。</translation>
        </message>
        <message>
            <source>Saved {file}, but it could not be recorded in the history: {error}</source>
            <translation>已保存 {file}，但无法记录到历史中：{error}</translation>
        </message>
        <message>
            <source>Saved {file} and recorded it as “edit: {file}” ({commit}).</source>
            <translation>已保存 {file}，并记录为“edit: {file}”（{commit}）。</translation>
        </message>
        <message>
            <source>{file} had no changes to save.</source>
            <translation>{file} 没有需要保存的更改。</translation>
        </message>
        <message>
            <source>{file} does not exist yet. Write here and save to create it.</source>
            <translation>{file} 尚不存在。在此输入并保存即可创建。</translation>
        </message>
        <message>
            <source>{file} changed on disk (for example by Dream) while you were editing it. Your edits are kept in the editor.</source>
            <translation>你编辑期间 {file} 已在磁盘上被更改（例如被梦境整理）。你的编辑仍保留在编辑器中。</translation>
        </message>
        <message>
            <source>Keep my edits</source>
            <translation>保留我的编辑</translation>
        </message>
        <message>
            <source>{file} (unsaved)</source>
            <translation>{file}（未保存）</translation>
        </message>
        <message>
            <source>Unpin this line</source>
            <translation>取消固定此行</translation>
        </message>
        <message>
            <source>Pin this line (Dream never changes it)</source>
            <translation>固定此行（梦境整理永不更改它）</translation>
        </message>
        <message>
            <source>Save {page} settings</source>
            <translation>保存{page}设置</translation>
        </message>
        <message>
            <source>Save these settings (Ctrl+S)</source>
            <translation>保存这些设置（Ctrl+S）</translation>
        </message>
        <message>
            <source>Local command (stdio)</source>
            <translation>本地命令（stdio）</translation>
        </message>
        <message>
            <source>Add an MCP server</source>
            <translation>添加 MCP 服务器</translation>
        </message>
        <message>
            <source>Server name</source>
            <translation>服务器名称</translation>
        </message>
        <message>
            <source>e.g. {example}</source>
            <translation>例如 {example}</translation>
        </message>
        <message>
            <source>Transport</source>
            <translation>传输方式</translation>
        </message>
        <message>
            <source>NAME=value (one per line)</source>
            <translation>NAME=value（每行一个）</translation>
        </message>
        <message>
            <source>Environment variables</source>
            <translation>环境变量</translation>
        </message>
        <message>
            <source>Server URL</source>
            <translation>服务器 URL</translation>
        </message>
        <message>
            <source>Show or hide the typed key</source>
            <translation>显示或隐藏输入的密钥</translation>
        </message>
        <message>
            <source>The key is stored in your system's keyring (never in a plain file).</source>
            <translation>密钥保存在系统的钥匙环中（从不写入明文文件）。</translation>
        </message>
        <message>
            <source>Test the connection</source>
            <translation>测试连接</translation>
        </message>
        <message>
            <source>Connection test result</source>
            <translation>连接测试结果</translation>
        </message>
        <message>
            <source>Keep the key for this session only</source>
            <translation>仅在本次运行中保留密钥</translation>
        </message>
        <message>
            <source>Keep the key in memory for this session only</source>
            <translation>仅在本次运行期间把密钥保留在内存中</translation>
        </message>
        <message>
            <source>Enter the address of an OpenAI-compatible server (llama.cpp, vLLM, LocalAI, a company gateway…), usually ending in /v1. A key is only needed if the server asks for one.</source>
            <translation>输入兼容 OpenAI 的服务器地址（llama.cpp、vLLM、LocalAI、公司网关…），通常以 /v1 结尾。只有服务器要求时才需要密钥。</translation>
        </message>
        <message>
            <source>{provider} must be running. Check its address; no key is needed.</source>
            <translation>{provider} 必须正在运行。请检查它的地址；无需密钥。</translation>
        </message>
        <message>
            <source>Paste your {provider} API key (or set {env}). Test it before going on.</source>
            <translation>粘贴你的 {provider} API 密钥（或设置 {env}）。继续之前请先测试。</translation>
        </message>
        <message>
            <source>Paste your {provider} API key. Test it before going on.</source>
            <translation>粘贴你的 {provider} API 密钥。继续之前请先测试。</translation>
        </message>
        <message>
            <source>optional</source>
            <translation>可选</translation>
        </message>
        <message>
            <source>paste your API key</source>
            <translation>粘贴你的 API 密钥</translation>
        </message>
        <message>
            <source>a key is already available ({source}); paste one to replace it</source>
            <translation>已有可用的密钥（{source}）；粘贴新密钥可替换它</translation>
        </message>
        <message>
            <source>Paste your API key first.</source>
            <translation>请先粘贴你的 API 密钥。</translation>
        </message>
        <message>
            <source>It works. {result}</source>
            <translation>连接成功。{result}</translation>
        </message>
        <message>
            <source>Paste your API key to go on (or Skip to set it up later).</source>
            <translation>粘贴你的 API 密钥以继续（或点“暂时跳过”以后再设置）。</translation>
        </message>
        <message>
            <source>A key has no spaces or line breaks; check what was pasted.</source>
            <translation>密钥中不含空格或换行；请检查粘贴的内容。</translation>
        </message>
        <message>
            <source>The key was not stored: {error}</source>
            <translation>密钥未能保存：{error}</translation>
        </message>
        <message>
            <source>stored in the OS keyring; paste another to replace it</source>
            <translation>已保存在系统钥匙环中；粘贴新密钥可替换它</translation>
        </message>
        <message>
            <source>The key is kept for this session only; add it again in Settings once a keyring works.</source>
            <translation>密钥仅在本次运行中保留；钥匙环可用后，请在设置中重新添加。</translation>
        </message>
        <message>
            <source>Header-Name: value (one per line), e.g. Authorization: Bearer …</source>
            <translation>Header-Name: value（每行一个），例如 Authorization: Bearer …</translation>
        </message>
        <message>
            <source>HTTP headers</source>
            <translation>HTTP 头</translation>
        </message>
        <message>
            <source> s</source>
            <translation> 秒</translation>
        </message>
        <message>
            <source>Tool timeout in seconds</source>
            <translation>工具超时（秒）</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>启用的工具</translation>
        </message>
        <message>
            <source>* (all), or names separated by commas</source>
            <translation>*（全部），或用逗号分隔的名称</translation>
        </message>
        <message>
            <source>Start from a well-known server</source>
            <translation>从常用服务器开始</translation>
        </message>
        <message>
            <source>Nothing — an empty form</source>
            <translation>无——空白表单</translation>
        </message>
        <message>
            <source>What the chosen server needs</source>
            <translation>所选服务器的要求</translation>
        </message>
        <message>
            <source>Start from</source>
            <translation>开始于</translation>
        </message>
        <message>
            <source>Environment</source>
            <translation>环境变量</translation>
        </message>
        <message>
            <source>Sign in with OAuth in the browser (tokens in the OS keyring)</source>
            <translation>在浏览器中通过 OAuth 登录（令牌保存在系统密钥环中）</translation>
        </message>
        <message>
            <source>Sign in with OAuth</source>
            <translation>通过 OAuth 登录</translation>
        </message>
        <message>
            <source>Headers</source>
            <translation>请求头</translation>
        </message>
        <message>
            <source>Sign-in</source>
            <translation>登录</translation>
        </message>
        <message>
            <source>Tool timeout</source>
            <translation>工具超时</translation>
        </message>
        <message>
            <source>A stdio server is a program on this computer: you approve its exact command before it is started for the first time. Credential headers (Authorization, API keys, tokens) are kept in the OS keyring, not in config.json.</source>
            <translation>stdio 服务器是本机上的程序：首次启动前，你需要批准它的完整命令。凭据类请求头（Authorization、API 密钥、令牌）保存在系统密钥环中，而不是 config.json 中。</translation>
        </message>
        <message>
            <source>MCP server form status</source>
            <translation>MCP 服务器表单状态</translation>
        </message>
        <message>
            <source>Cancel editing the MCP server</source>
            <translation>取消编辑 MCP 服务器</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>继续</translation>
        </message>
        <message>
            <source>Save the MCP server</source>
            <translation>保存 MCP 服务器</translation>
        </message>
        <message>
            <source>Edit MCP server “{name}”</source>
            <translation>编辑 MCP 服务器“{name}”</translation>
        </message>
        <message>
            <source>URL: {url}</source>
            <translation>URL：{url}</translation>
        </message>
        <message>
            <source>Runs: {command}</source>
            <translation>运行：{command}</translation>
        </message>
        <message>
            <source>Needs: {needs}.</source>
            <translation>需要：{needs}。</translation>
        </message>
        <message>
            <source>Documentation: {url}</source>
            <translation>文档：{url}</translation>
        </message>
        <message>
            <source>Replace each &lt;…&gt; with your own value.</source>
            <translation>请把每个 &lt;…&gt; 替换为你自己的值。</translation>
        </message>
        <message>
            <source>a server named {name} exists already</source>
            <translation>名为 {name} 的服务器已存在</translation>
        </message>
        <message>
            <source>replace {placeholder} with your own value</source>
            <translation>请把 {placeholder} 替换为你自己的值</translation>
        </message>
        <message>
            <source>enter the program to run</source>
            <translation>请输入要运行的程序</translation>
        </message>
        <message>
            <source>cannot split them ({error}); check the quotes</source>
            <translation>无法拆分参数（{error}），请检查引号</translation>
        </message>
        <message>
            <source>Server</source>
            <translation>服务器</translation>
        </message>
        <message>
            <source>type the value of {header}</source>
            <translation>请输入 {header} 的值</translation>
        </message>
        <message>
            <source>{field}: {reason}. Nothing was saved.</source>
            <translation>{field}：{reason}。未保存任何内容。</translation>
        </message>
        <message>
            <source>Saved, but: {problem}</source>
            <translation>已保存，但是：{problem}</translation>
        </message>
        <message>
            <source>summarise this conversation into memory and start a fresh one (in a desktop chat a new chat opens and this one stays in the list; any other chat is set aside)</source>
            <translation>将本次对话总结进记忆并开始新对话（在桌面聊天中会打开新聊天，本聊天保留在列表中；其他聊天会被搁置）</translation>
        </message>
        <message>
            <source>summarise this conversation so far; later turns send the summary, not every message</source>
            <translation>总结目前的对话；之后的轮次只发送摘要，而不是每条消息</translation>
        </message>
        <message>
            <source>stop the running turn and its subagents</source>
            <translation>停止正在运行的轮次及其子智能体</translation>
        </message>
        <message>
            <source>model, tokens used, context fill, messages, running tasks</source>
            <translation>模型、已用令牌、上下文占用、消息、运行中的任务</translation>
        </message>
        <message>
            <source>distil recent history into long-term memory now</source>
            <translation>立即将近期历史提炼为长期记忆</translation>
        </message>
        <message>
            <source>show the latest Dream change (or /dream-log &lt;sha&gt;)</source>
            <translation>显示最近一次梦境整理的更改（或 /dream-log &lt;sha&gt;）</translation>
        </message>
        <message>
            <source>list recent Dream changes; /dream-restore &lt;sha&gt; undoes one</source>
            <translation>列出近期梦境整理的更改；/dream-restore &lt;sha&gt; 撤销其中一项</translation>
        </message>
        <message>
            <source>show how Dream organises memory here; /dream-prompt init makes it editable</source>
            <translation>显示梦境整理在此如何组织记忆；/dream-prompt init 使其可编辑</translation>
        </message>
        <message>
            <source>/trigger &lt;name&gt; makes a trigger bound to this chat: 'nanobot-desktop trigger &lt;id&gt; "message"' then sends a message into it</source>
            <translation>/trigger &lt;name&gt; 创建绑定到本聊天的触发器：之后用 'nanobot-desktop trigger &lt;id&gt; "message"' 向其发送消息</translation>
        </message>
        <message>
            <source>list pairing requests; /pairing approve|deny &lt;code&gt;, /pairing revoke &lt;channel&gt; &lt;sender&gt;</source>
            <translation>列出配对请求；/pairing approve|deny &lt;code&gt;，/pairing revoke &lt;channel&gt; &lt;sender&gt;</translation>
        </message>
        <message>
            <source>/image &lt;description&gt; makes an image with the configured image provider</source>
            <translation>/image &lt;description&gt; 使用已配置的图像服务商生成图片</translation>
        </message>
        <message>
            <source>this list</source>
            <translation>显示此列表</translation>
        </message>
        <message>
            <source>Your message is too long ({size}); I read messages up to {limit} KB. Send it as a file instead, or in shorter parts.</source>
            <translation>消息过长（{size}）；我最多读取 {limit} KB 的消息。请改为以文件发送，或分成较短的几部分。</translation>
        </message>
        <message>
            <source>New chat</source>
            <extracomment>The desktop's reminders chat (``cron.delivery.DEFAULT_CHANNEL:DEFAULT_CHAT``). The heartbeat's session (ours, and nanobot's).</extracomment>
            <translation>新聊天</translation>
        </message>
        <message>
            <source>Reminders</source>
            <translation>提醒</translation>
        </message>
        <message>
            <source>Heartbeat</source>
            <translation>心跳</translation>
        </message>
        <message>
            <source>Background task</source>
            <translation>后台任务</translation>
        </message>
        <message>
            <source>Archive into memory now</source>
            <translation>立即归档到记忆</translation>
        </message>
        <message>
            <source>Nothing new to archive: this chat is in memory already.</source>
            <translation>没有新内容可归档：本聊天已在记忆中。</translation>
        </message>
        <message>
            <source>1 message summarised into memory (History); Dream learns from them.</source>
            <translation>已将 1 条消息总结进记忆（历史）；梦境整理会从中学习。</translation>
        </message>
        <message>
            <source>{count} messages summarised into memory (History); Dream learns from them.</source>
            <translation>已将 {count} 条消息总结进记忆（历史）；梦境整理会从中学习。</translation>
        </message>
        <message>
            <source>Regenerate, export, archive into memory</source>
            <translation>重新生成、导出、归档到记忆</translation>
        </message>
        <message>
            <source>Archiving into memory failed: {error}</source>
            <translation>归档到记忆失败：{error}</translation>
        </message>
        <message>
            <source>Not connected — see the message at the top of the window</source>
            <translation>未连接——请查看窗口顶部的消息</translation>
        </message>
        <message>
            <source>Images and documents (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.pdf *.docx *.xlsx *.pptx)</source>
            <translation>图片和文档 (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.pdf *.docx *.xlsx *.pptx)</translation>
        </message>
        <message>
            <source>Message nanobot — Enter sends, Shift+Enter adds a line, / for commands</source>
            <translation>给 nanobot 发消息——Enter 发送，Shift+Enter 换行，/ 输入命令</translation>
        </message>
        <message>
            <source>Message nanobot — Enter sends, / for commands</source>
            <translation>给 nanobot 发消息——Enter 发送，/ 输入命令</translation>
        </message>
        <message>
            <source>Message nanobot</source>
            <translation>给 nanobot 发消息</translation>
        </message>
        <message>
            <source>Guide the running answer — Enter queues it for its next step, Esc stops</source>
            <translation>引导正在进行的回答——Enter 排入其下一步，Esc 停止</translation>
        </message>
        <message>
            <source>Guide the running answer — Esc stops</source>
            <translation>引导正在进行的回答——Esc 停止</translation>
        </message>
        <message>
            <source>Guide the running answer</source>
            <translation>引导正在进行的回答</translation>
        </message>
        <message>
            <source>Attach images or documents (or paste / drop them)</source>
            <translation>添加图片或文档（也可粘贴或拖放）</translation>
        </message>
        <message>
            <source>Attach images or documents</source>
            <translation>添加图片或文档</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>connecting…</source>
            <translation>正在连接…</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stop the running turn (Esc). Enter sends what you typed to it as guidance.</source>
            <translation>停止正在运行的轮次（Esc）。按 Enter 会把输入的内容作为引导发给它。</translation>
        </message>
        <message>
            <source>Send (Enter)</source>
            <translation>发送（Enter）</translation>
        </message>
        <message>
            <source>{path}
Click to remove</source>
            <translation>{path}
点击移除</translation>
        </message>
        <message>
            <source>Remove attachment {name}</source>
            <translation>移除附件 {name}</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
        <message>
            <source>Commands</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>You</source>
            <translation>你</translation>
        </message>
        <message>
            <source>Assistant (answering)</source>
            <translation>助手（正在回答）</translation>
        </message>
        <message>
            <source>Assistant</source>
            <translation>助手</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推理过程</translation>
        </message>
        <message>
            <source>waiting for your approval</source>
            <translation>等待你的审批</translation>
        </message>
        <message>
            <source>denied</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>'at' must be an ISO time like 2026-05-01T09:30, got {text}</source>
            <translation>“at”必须是 ISO 时间，如 2026-05-01T09:30，收到的是 {text}</translation>
        </message>
        <message>
            <source>give exactly one of every_seconds, cron_expr or at (got {given})</source>
            <translation>every_seconds、cron_expr 和 at 必须且只能给出一个（收到 {given}）</translation>
        </message>
        <message>
            <source>give exactly one of every_seconds, cron_expr or at</source>
            <translation>every_seconds、cron_expr 和 at 必须且只能给出一个</translation>
        </message>
        <message>
            <source>tz only applies to cron_expr or at</source>
            <translation>tz 只适用于 cron_expr 或 at</translation>
        </message>
        <message>
            <source>every_seconds must be at least 1, got {value}</source>
            <translation>every_seconds 至少为 1，收到的是 {value}</translation>
        </message>
        <message>
            <source>over budget</source>
            <extracomment>How a skipped run's ``cause`` reads.</extracomment>
            <translation>超出预算</translation>
        </message>
        <message>
            <source>paused</source>
            <translation>已暂停</translation>
        </message>
        <message>
            <source>no pop-up: reminders are paused</source>
            <translation>无弹窗：提醒已暂停</translation>
        </message>
        <message>
            <source>delivered</source>
            <extracomment>A receipt's outcome in words (one the code does not know reads as it is).</extracomment>
            <translation>已送达</translation>
        </message>
        <message>
            <source>ran</source>
            <translation>已运行</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>undelivered</source>
            <translation>未送达</translation>
        </message>
        <message>
            <source>skipped</source>
            <translation>已跳过</translation>
        </message>
        <message>
            <source>done</source>
            <translation>已完成</translation>
        </message>
        <message>
            <source>snoozed</source>
            <translation>已稍后提醒</translation>
        </message>
        <message>
            <source>its text shown quietly on {places}</source>
            <translation>其内容已在 {places} 静默显示</translation>
        </message>
        <message>
            <source>its text shown on {places}</source>
            <translation>其内容已在 {places} 显示</translation>
        </message>
        <message>
            <source>shown quietly on {places}</source>
            <translation>已在 {places} 静默显示</translation>
        </message>
        <message>
            <source>shown on {places}</source>
            <translation>已在 {places} 显示</translation>
        </message>
        <message>
            <source>{outcome} quietly to {places}</source>
            <translation>{outcome}（静默）至 {places}</translation>
        </message>
        <message>
            <source>{outcome} to {places}</source>
            <translation>{outcome}至 {places}</translation>
        </message>
        <message>
            <source>{first}; {second}</source>
            <translation>{first}；{second}</translation>
        </message>
        <message>
            <source> ({notes})</source>
            <translation>（{notes}）</translation>
        </message>
        <message>
            <source> at {time}</source>
            <translation>，时间 {time}</translation>
        </message>
        <message>
            <source> (late: due {due}, {missed} runs missed)</source>
            <translation>（延迟：应于 {due} 运行，错过 {missed} 次）</translation>
        </message>
        <message>
            <source> (late: due {due})</source>
            <translation>（延迟：应于 {due} 运行）</translation>
        </message>
        <message>
            <source>; {outcome} by you at {time}</source>
            <translation>；你于 {time} {outcome}</translation>
        </message>
        <message>
            <source>succeeded</source>
            <translation>成功</translation>
        </message>
        <message>
            <source>Tool {tool}, {state}</source>
            <translation>工具 {tool}，{state}</translation>
        </message>
        <message>
            <source>Background task report</source>
            <translation>后台任务报告</translation>
        </message>
        <message>
            <source>Sent by the agent</source>
            <translation>由智能体发送</translation>
        </message>
        <message>
            <source>Reply to {command}</source>
            <translation>{command} 的回复</translation>
        </message>
        <message>
            <source>command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>Note</source>
            <translation>提示</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>思考中…</translation>
        </message>
        <message>
            <source>{text} (version {number} of {total}; Left and Right arrows switch)</source>
            <translation>{text}（第 {number} 版，共 {total} 版；用左右方向键切换）</translation>
        </message>
        <message>
            <source>{speaker}: {text}</source>
            <translation>{speaker}：{text}</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>Round {number} · {model}</source>
            <translation>第 {number} 轮 · {model}</translation>
        </message>
        <message>
            <source>, {outcome}</source>
            <translation>，{outcome}</translation>
        </message>
        <message>
            <source>, estimated</source>
            <translation>，估算值</translation>
        </message>
        <message>
            <source>input {tokens} ({cached} cached)</source>
            <translation>输入 {tokens}（其中缓存 {cached}）</translation>
        </message>
        <message>
            <source>input {tokens}</source>
            <translation>输入 {tokens}</translation>
        </message>
        <message>
            <source>output {tokens}</source>
            <translation>输出 {tokens}</translation>
        </message>
        <message>
            <source>Context per round chart</source>
            <translation>每轮上下文图表</translation>
        </message>
        <message>
            <source>No rounds recorded yet</source>
            <translation>尚无轮次记录</translation>
        </message>
        <message>
            <source>{rounds} round(s); last input {tokens} of {window} tokens, output {output}; {compactions} compaction(s)</source>
            <translation>{rounds} 轮；最近一次输入 {tokens} / {window} 令牌，输出 {output}；压缩 {compactions} 次</translation>
        </message>
        <message>
            <source>{rounds} round(s); last input {tokens} tokens, output {output}; {compactions} compaction(s)</source>
            <translation>{rounds} 轮；最近一次输入 {tokens} 令牌，输出 {output}；压缩 {compactions} 次</translation>
        </message>
        <message>
            <source>input</source>
            <translation>输入</translation>
        </message>
        <message>
            <source>cached input</source>
            <translation>缓存输入</translation>
        </message>
        <message>
            <source>output</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>context window</source>
            <translation>上下文窗口</translation>
        </message>
        <message>
            <source>compaction</source>
            <translation>压缩</translation>
        </message>
        <message>
            <source>window {tokens}</source>
            <translation>窗口 {tokens}</translation>
        </message>
        <message>
            <source>compacted</source>
            <translation>已压缩</translation>
        </message>
        <message>
            <source>(latest {shown} of {total} rounds)</source>
            <translation>（最近 {shown} 轮，共 {total} 轮）</translation>
        </message>
        <message>
            <source>No model calls recorded for this chat yet.</source>
            <translation>此聊天尚无模型调用记录。</translation>
        </message>
        <message>
            <source>{count} round(s)</source>
            <translation>{count} 轮</translation>
        </message>
        <message>
            <source>last request {tokens} of {window} tokens ({percent}%)</source>
            <translation>最近一次请求 {tokens} / {window} 令牌（{percent}%）</translation>
        </message>
        <message>
            <source>last request {tokens} tokens</source>
            <translation>最近一次请求 {tokens} 令牌</translation>
        </message>
        <message>
            <source>cache hits in {count} round(s), {tokens} tokens</source>
            <translation>{count} 轮命中缓存，共 {tokens} 令牌</translation>
        </message>
        <message>
            <source>no cache hits reported</source>
            <translation>未报告缓存命中</translation>
        </message>
        <message>
            <source>compacted {count}×</source>
            <translation>已压缩 {count} 次</translation>
        </message>
        <message>
            <source>not compacted</source>
            <translation>未压缩</translation>
        </message>
        <message>
            <source>Context — {title}</source>
            <translation>上下文 — {title}</translation>
        </message>
        <message>
            <source>Context view</source>
            <translation>上下文视图</translation>
        </message>
        <message>
            <source>Reading the usage ledger…</source>
            <translation>正在读取用量记录…</translation>
        </message>
        <message>
            <source>Context summary</source>
            <translation>上下文摘要</translation>
        </message>
        <message>
            <source>Each round is one model call of this chat's turns, as the provider reported it. Compaction summarises older messages so later rounds send less.</source>
            <translation>每一轮是此聊天中的一次模型调用，数据来自服务商的报告。压缩会总结较早的消息，让之后的轮次发送更少的内容。</translation>
        </message>
        <message>
            <source>Compact now</source>
            <translation>立即压缩</translation>
        </message>
        <message>
            <source>Summarise this chat so far (/compact)</source>
            <translation>总结此聊天至今的内容（/compact）</translation>
        </message>
        <message>
            <source>Compacting…</source>
            <translation>正在压缩…</translation>
        </message>
        <message>
            <source>Check the key in the provider settings.</source>
            <translation>请在服务商设置中检查密钥。</translation>
        </message>
        <message>
            <source>Provider settings</source>
            <translation>服务商设置</translation>
        </message>
        <message>
            <source>Add credit or switch provider.</source>
            <translation>请充值或更换服务商。</translation>
        </message>
        <message>
            <source>Usage &amp; budgets</source>
            <translation>用量与预算</translation>
        </message>
        <message>
            <source>Wait a moment, then retry.</source>
            <translation>请稍候再重试。</translation>
        </message>
        <message>
            <source>Choose another model.</source>
            <translation>请选择其他模型。</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>选择模型</translation>
        </message>
        <message>
            <source>Check the endpoint and your connection.</source>
            <translation>请检查端点和网络连接。</translation>
        </message>
        <message>
            <source>Agent settings</source>
            <translation>智能体设置</translation>
        </message>
        <message>
            <source>Retry, or rephrase the request.</source>
            <translation>请重试，或换种方式表述请求。</translation>
        </message>
        <message>
            <source>The last reply did not finish.</source>
            <translation>上一条回复未完成。</translation>
        </message>
        <message>
            <source>The model call failed.</source>
            <translation>模型调用失败。</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Retry</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Dismiss error</source>
            <translation>关闭错误提示</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>Show error details</source>
            <translation>显示错误详情</translation>
        </message>
        <message>
            <source>Error details</source>
            <translation>错误详情</translation>
        </message>
        <message>
            <source>{sentence} {advice}</source>
            <translation>{sentence}{advice}</translation>
        </message>
        <message>
            <source>Describe an image — Enter makes it with the image provider, Ctrl+Shift+I leaves image mode</source>
            <translation>描述一张图片——Enter 由图像服务商生成，Ctrl+Shift+I 退出图片模式</translation>
        </message>
        <message>
            <source>Describe an image — Enter makes it</source>
            <translation>描述一张图片——Enter 生成</translation>
        </message>
        <message>
            <source>Describe an image</source>
            <translation>描述一张图片</translation>
        </message>
        <message>
            <source>Image mode ({shortcut}): what you send is drawn as an image</source>
            <translation>图片模式（{shortcut}）：发送的内容会被画成图片</translation>
        </message>
        <message>
            <source>Image mode</source>
            <translation>图片模式</translation>
        </message>
        <message>
            <source>Image mode (on)</source>
            <translation>图片模式（已开启）</translation>
        </message>
        <message>
            <source>New messages ↓</source>
            <translation>新消息 ↓</translation>
        </message>
        <message>
            <source>New messages below</source>
            <translation>下方有新消息</translation>
        </message>
        <message>
            <source>Scroll to the newest message</source>
            <translation>滚动到最新消息</translation>
        </message>
        <message>
            <source>Scroll to the newest message (End)</source>
            <translation>滚动到最新消息（End）</translation>
        </message>
        <message>
            <source>Chats, skills and MCP servers</source>
            <extracomment>``@word`` right before the cursor, at the start of the text or after a space.</extracomment>
            <translation>聊天、技能和 MCP 服务器</translation>
        </message>
        <message>
            <source>skill</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>MCP server</source>
            <translation>MCP 服务器</translation>
        </message>
        <message>
            <source>Auto</source>
            <translation>自动</translation>
        </message>
        <message>
            <source>Choose another model</source>
            <translation>选择其他模型</translation>
        </message>
        <message>
            <source>Provider</source>
            <translation>服务商</translation>
        </message>
        <message>
            <source>Auto (from the model name)</source>
            <translation>自动（根据模型名称）</translation>
        </message>
        <message>
            <source>Model name</source>
            <translation>模型名称</translation>
        </message>
        <message>
            <source>model name</source>
            <translation>模型名称</translation>
        </message>
        <message>
            <source>Use</source>
            <translation>使用</translation>
        </message>
        <message>
            <source>Use this model</source>
            <translation>使用此模型</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>listing models…</source>
            <translation>正在列出模型…</translation>
        </message>
        <message>
            <source>{count} listed</source>
            <translation>已列出 {count} 个</translation>
        </message>
        <message>
            <source>enter a model name</source>
            <translation>请输入模型名称</translation>
        </message>
        <message>
            <source>{model} via {provider}</source>
            <translation>{model}（经由 {provider}）</translation>
        </message>
        <message>
            <source>This chat uses {model} (its own model). New chats use the default, {default}. Click to change this chat's model.</source>
            <translation>本聊天使用 {model}（本聊天专用模型）。新聊天使用默认模型 {default}。点击更改本聊天的模型。</translation>
        </message>
        <message>
            <source>{model}, this chat's own model</source>
            <translation>{model}，本聊天专用模型</translation>
        </message>
        <message>
            <source>This chat uses the default model, {model}. Click to choose another model for this chat.</source>
            <translation>本聊天使用默认模型 {model}。点击为本聊天选择其他模型。</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>{model}, the default model</source>
            <translation>{model}，默认模型</translation>
        </message>
        <message>
            <source>This chat uses the preset {name} ({model}). Click to switch.</source>
            <translation>本聊天使用预设 {name}（{model}）。点击切换。</translation>
        </message>
        <message>
            <source>preset {name}, {model}</source>
            <translation>预设 {name}，{model}</translation>
        </message>
        <message>
            <source>No model</source>
            <translation>无模型</translation>
        </message>
        <message>
            <source>Model for this chat</source>
            <translation>本聊天的模型</translation>
        </message>
        <message>
            <source>Other model…</source>
            <translation>其他模型…</translation>
        </message>
        <message>
            <source>Use the default model ({model})</source>
            <translation>使用默认模型（{model}）</translation>
        </message>
        <message>
            <source>Make {model} the default for new chats</source>
            <translation>将 {model} 设为新聊天的默认模型</translation>
        </message>
        <message>
            <source>Default model settings…</source>
            <translation>默认模型设置…</translation>
        </message>
        <message>
            <source>Presets for this chat</source>
            <translation>本聊天的预设</translation>
        </message>
        <message>
            <source>Answer this chat with the preset {name} ({model})</source>
            <translation>用预设 {name}（{model}）回答本聊天</translation>
        </message>
        <message>
            <source>No preset for this chat</source>
            <translation>本聊天不使用预设</translation>
        </message>
        <message>
            <source>Retry runs it again.</source>
            <translation>点击“重试”重新运行。</translation>
        </message>
        <message>
            <source>{name} is a folder:

{names}
… and {count} more</source>
            <translation>{name} 是一个文件夹：

{names}
…… 另有 {count} 项</translation>
        </message>
        <message>
            <source>{name} is a folder:

{names}</source>
            <translation>{name} 是一个文件夹：

{names}</translation>
        </message>
        <message>
            <source>This image is too large to preview ({size}; the limit is {limit}).</source>
            <translation>此图片过大，无法预览（{size}，上限为 {limit}）。</translation>
        </message>
        <message>
            <source>This file is too large to preview ({size}; the limit is {limit}). Open it in an editor.</source>
            <translation>此文件过大，无法预览（{size}，上限为 {limit}）。请在编辑器中打开。</translation>
        </message>
        <message>
            <source>This is a binary file ({size}); it has no text to show.</source>
            <translation>这是一个二进制文件（{size}），没有可显示的文本。</translation>
        </message>
        <message>
            <source>This file does not exist (any more).</source>
            <translation>此文件不存在（或已被删除）。</translation>
        </message>
        <message>
            <source>This file cannot be read (no permission).</source>
            <translation>无法读取此文件（没有权限）。</translation>
        </message>
        <message>
            <source>This file cannot be read: {error}.</source>
            <translation>无法读取此文件：{error}。</translation>
        </message>
        <message>
            <source>This file is not UTF-8 text; open it in an editor.</source>
            <translation>此文件不是 UTF-8 文本，请在编辑器中打开。</translation>
        </message>
        <message>
            <source>Image</source>
            <translation>图片</translation>
        </message>
        <message>
            <source>{width} × {height} pixels, shown at {scale}</source>
            <translation>{width} × {height} 像素，显示比例 {scale}</translation>
        </message>
        <message>
            <source>Open in editor</source>
            <translation>在编辑器中打开</translation>
        </message>
        <message>
            <source>Open {name} in the system's editor</source>
            <translation>在系统编辑器中打开 {name}</translation>
        </message>
        <message>
            <source>Show in folder</source>
            <translation>在文件夹中显示</translation>
        </message>
        <message>
            <source>Show the folder of {name}</source>
            <translation>显示 {name} 所在的文件夹</translation>
        </message>
        <message>
            <source>Fit</source>
            <translation>适应窗格</translation>
        </message>
        <message>
            <source>Fit the image to the pane</source>
            <translation>使图片适应窗格大小</translation>
        </message>
        <message>
            <source>Show the image at 100 %</source>
            <translation>以 100% 比例显示图片</translation>
        </message>
        <message>
            <source>Contents of {name}</source>
            <translation>{name} 的内容</translation>
        </message>
        <message>
            <source>Loading…</source>
            <translation>正在加载…</translation>
        </message>
        <message>
            <source>{count} bytes</source>
            <translation>{count} 字节</translation>
        </message>
        <message>
            <source>This image could not be decoded.</source>
            <translation>无法解码此图片。</translation>
        </message>
        <message>
            <source>File preview</source>
            <translation>文件预览</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>预览</translation>
        </message>
        <message>
            <source>Close the preview (Esc); Ctrl+W closes the tab</source>
            <translation>关闭预览（Esc）；Ctrl+W 关闭标签页</translation>
        </message>
        <message>
            <source>Close the preview</source>
            <translation>关闭预览</translation>
        </message>
        <message>
            <source>Previewed files</source>
            <translation>预览的文件</translation>
        </message>
        <message>
            <source>No project (workspace)</source>
            <extracomment>Opens the folder chooser: ``(parent, caption, start folder)`` → the chosen folder, or ``""`` when cancelled. Tests replace it (the OS dialog cannot be driven).</extracomment>
            <translation>无项目（工作区）</translation>
        </message>
        <message>
            <source>Restricted</source>
            <translation>受限</translation>
        </message>
        <message>
            <source>File tools and commands work only inside the project folder (or the workspace).</source>
            <translation>文件工具和命令只在项目文件夹（或工作区）内运行。</translation>
        </message>
        <message>
            <source>Full access</source>
            <translation>完全访问</translation>
        </message>
        <message>
            <source>File tools and commands may reach outside the project folder; writes outside it still ask first.</source>
            <translation>文件工具和命令可以访问项目文件夹以外的位置；在其外写入仍会先询问。</translation>
        </message>
        <message>
            <source>Full access is off: Settings → Tools &amp; safety restricts tools to the workspace.</source>
            <translation>完全访问已关闭：设置 → 工具与安全 将工具限制在工作区内。</translation>
        </message>
        <message>
            <source>Project folder</source>
            <translation>项目文件夹</translation>
        </message>
        <message>
            <source>Choose project folder…</source>
            <translation>选择项目文件夹…</translation>
        </message>
        <message>
            <source>Clear project</source>
            <translation>清除项目</translation>
        </message>
        <message>
            <source>Access mode</source>
            <translation>访问模式</translation>
        </message>
        <message>
            <source>Full access unavailable</source>
            <translation>无法使用完全访问</translation>
        </message>
        <message>
            <source>Project folder problem</source>
            <translation>项目文件夹问题</translation>
        </message>
        <message>
            <source>Project:</source>
            <translation>项目：</translation>
        </message>
        <message>
            <source>Access:</source>
            <translation>访问：</translation>
        </message>
        <message>
            <source>Relative paths and commands start in the agent's workspace. Choose a project folder for this chat.</source>
            <translation>相对路径和命令从智能体的工作区开始。可为本聊天选择一个项目文件夹。</translation>
        </message>
        <message>
            <source>Choose the chat's project folder</source>
            <translation>选择本聊天的项目文件夹</translation>
        </message>
        <message>
            <source>This applies from the next message.</source>
            <translation>将从下一条消息起生效。</translation>
        </message>
        <message>
            <source>The chat's project could not be saved.</source>
            <translation>无法保存本聊天的项目。</translation>
        </message>
        <message>
            <source>Stop reading aloud</source>
            <translation>停止朗读</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>朗读</translation>
        </message>
        <message>
            <source>temporary</source>
            <translation>临时</translation>
        </message>
        <message>
            <source>needs your approval</source>
            <translation>等待你的审批</translation>
        </message>
        <message>
            <source>working…</source>
            <translation>处理中…</translation>
        </message>
        <message>
            <source>new</source>
            <translation>新建</translation>
        </message>
        <message>
            <source>new message</source>
            <translation>新消息</translation>
        </message>
        <message>
            <source>running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>unread</source>
            <translation>未读</translation>
        </message>
        <message>
            <source>needs approval</source>
            <translation>需要审批</translation>
        </message>
        <message>
            <source>found: {snippet}</source>
            <translation>找到：{snippet}</translation>
        </message>
        <message>
            <source>, </source>
            <translation>，</translation>
        </message>
        <message>
            <source>Search chats (Ctrl+K)</source>
            <translation>搜索聊天（Ctrl+K）</translation>
        </message>
        <message>
            <source>Search chats</source>
            <translation>搜索聊天</translation>
        </message>
        <message>
            <source>New chat</source>
            <comment>action</comment>
            <translation>新建聊天</translation>
        </message>
        <message>
            <source>Start a new chat (Ctrl+N)</source>
            <translation>开始新聊天（Ctrl+N）</translation>
        </message>
        <message>
            <source>New temporary chat</source>
            <translation>新临时聊天</translation>
        </message>
        <message>
            <source>Start a temporary chat: nothing is saved, remembered or scheduled (Ctrl+Shift+N)</source>
            <translation>开始临时聊天：不保存、不记忆、不安排任何内容（Ctrl+Shift+N）</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Search result</source>
            <translation>搜索结果</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>重命名</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Searching…</source>
            <translation>正在搜索…</translation>
        </message>
        <message>
            <source>No chats match “{query}”.</source>
            <translation>没有与“{query}”匹配的聊天。</translation>
        </message>
        <message>
            <source>Could not rename: {error}</source>
            <translation>无法重命名：{error}</translation>
        </message>
        <message>
            <source>Could not delete: {error}</source>
            <translation>无法删除：{error}</translation>
        </message>
        <message>
            <source>Deleted “{title}”.</source>
            <translation>已删除“{title}”。</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Could not restore: {error}</source>
            <translation>无法恢复：{error}</translation>
        </message>
        <message>
            <source>Notification</source>
            <translation>通知</translation>
        </message>
        <message>
            <source>Messages for the running answer</source>
            <translation>发给进行中回答的消息</translation>
        </message>
        <message>
            <source>Queued for the next step: {text}</source>
            <translation>已排入下一步：{text}</translation>
        </message>
        <message>
            <source>Queued message</source>
            <translation>排队的消息</translation>
        </message>
        <message>
            <source>Send now</source>
            <translation>立即发送</translation>
        </message>
        <message>
            <source>Stop the answer and send this now</source>
            <translation>停止回答并立即发送此消息</translation>
        </message>
        <message>
            <source>Stop the running answer and send this as a new message</source>
            <translation>停止正在进行的回答，并将此内容作为新消息发送</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Remove the queued message</source>
            <translation>移除排队的消息</translation>
        </message>
        <message>
            <source>Temporary chat — nothing is saved, remembered or scheduled from it. It is gone when you close it or quit.</source>
            <translation>临时聊天——不会保存、记忆或据此安排任何内容。关闭它或退出应用后即消失。</translation>
        </message>
        <message>
            <source>Temporary chat</source>
            <translation>临时聊天</translation>
        </message>
        <message>
            <source>Last turn usage</source>
            <translation>上一轮用量</translation>
        </message>
        <message>
            <source>Context window fill</source>
            <translation>上下文窗口占用</translation>
        </message>
        <message>
            <source>Enter opens the chat's context per round</source>
            <translation>按 Enter 查看本聊天每一轮的上下文</translation>
        </message>
        <message>
            <source>context –</source>
            <translation>上下文 –</translation>
        </message>
        <message>
            <source>How much of the model's context window the last request used (click for each round)</source>
            <translation>上一次请求占用了模型上下文窗口的多少（点击查看每一轮）</translation>
        </message>
        <message>
            <source>context {percent}%</source>
            <translation>上下文 {percent}%</translation>
        </message>
        <message>
            <source>Last request: {tokens} of {window} tokens — click for each round</source>
            <translation>上一次请求：{tokens} / {window} 个令牌——点击查看每一轮</translation>
        </message>
        <message>
            <source>Microphone level</source>
            <translation>麦克风音量</translation>
        </message>
        <message>
            <source>Stop and transcribe</source>
            <translation>停止并转写</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>再试一次</translation>
        </message>
        <message>
            <source>Install voice support</source>
            <translation>安装语音支持</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>Voice input ({shortcut}): speak, then press again</source>
            <translation>语音输入（{shortcut}）：说话，然后再按一次</translation>
        </message>
        <message>
            <source>Voice input</source>
            <translation>语音输入</translation>
        </message>
        <message>
            <source>Recording {time} — Esc cancels</source>
            <translation>正在录音 {time}——Esc 取消</translation>
        </message>
        <message>
            <source>The recording could not be kept: {error}</source>
            <translation>无法保存录音：{error}</translation>
        </message>
        <message>
            <source>Transcribing…</source>
            <translation>正在转写…</translation>
        </message>
        <message>
            <source>Voice transcription is turned off in the config.</source>
            <translation>配置中已关闭语音转写。</translation>
        </message>
        <message>
            <source>No {provider} key for transcription: add one in Settings → Providers (or choose another transcription provider).</source>
            <translation>没有用于转写的 {provider} 密钥：请在 设置 → 服务商 中添加（或选择其他转写服务商）。</translation>
        </message>
        <message>
            <source>No transcript: {error}
The recording is kept: {path}</source>
            <translation>未能转写：{error}
录音已保存：{path}</translation>
        </message>
        <message>
            <source>Nothing was heard in the recording.</source>
            <translation>录音中没有听到任何内容。</translation>
        </message>
        <message>
            <source>Stop recording</source>
            <translation>停止录音</translation>
        </message>
        <message>
            <source>{reason} Install it with: {command}</source>
            <translation>{reason} 安装命令：{command}</translation>
        </message>
        <message>
            <source>{reason} This runs:
{command}</source>
            <translation>{reason} 将运行：
{command}</translation>
        </message>
        <message>
            <source>Installing voice support…</source>
            <translation>正在安装语音支持…</translation>
        </message>
        <message>
            <source>Installing… {line}</source>
            <translation>正在安装… {line}</translation>
        </message>
        <message>
            <source>Installing voice support failed:
{error}</source>
            <translation>安装语音支持失败：
{error}</translation>
        </message>
        <message>
            <source>Voice support is installed: press 🎙 to speak.</source>
            <translation>语音支持已安装：按 🎙 开始说话。</translation>
        </message>
        <message>
            <source>Mon</source>
            <translation>周一</translation>
        </message>
        <message>
            <source>Tue</source>
            <translation>周二</translation>
        </message>
        <message>
            <source>Wed</source>
            <translation>周三</translation>
        </message>
        <message>
            <source>Thu</source>
            <translation>周四</translation>
        </message>
        <message>
            <source>Fri</source>
            <translation>周五</translation>
        </message>
        <message>
            <source>Sat</source>
            <translation>周六</translation>
        </message>
        <message>
            <source>Sun</source>
            <translation>周日</translation>
        </message>
        <message>
            <source>Jan</source>
            <translation>1月</translation>
        </message>
        <message>
            <source>Feb</source>
            <translation>2月</translation>
        </message>
        <message>
            <source>Mar</source>
            <translation>3月</translation>
        </message>
        <message>
            <source>Apr</source>
            <translation>4月</translation>
        </message>
        <message>
            <source>May</source>
            <translation>5月</translation>
        </message>
        <message>
            <source>Jun</source>
            <translation>6月</translation>
        </message>
        <message>
            <source>Jul</source>
            <translation>7月</translation>
        </message>
        <message>
            <source>Aug</source>
            <translation>8月</translation>
        </message>
        <message>
            <source>Sep</source>
            <translation>9月</translation>
        </message>
        <message>
            <source>Oct</source>
            <translation>10月</translation>
        </message>
        <message>
            <source>Nov</source>
            <translation>11月</translation>
        </message>
        <message>
            <source>Dec</source>
            <translation>12月</translation>
        </message>
        <message>
            <source>1 call ({tokens} tokens, ${usd})</source>
            <translation>1 次调用（{tokens} 个令牌，${usd}）</translation>
        </message>
        <message>
            <source>{calls} calls ({tokens} tokens, ${usd})</source>
            <translation>{calls} 次调用（{tokens} 个令牌，${usd}）</translation>
        </message>
        <message>
            <source>The usage ledger for {month} was deleted outside the app: its {counted} still count toward the budgets.</source>
            <translation>{month}的用量账本在应用之外被删除：其中的 {counted}仍计入预算。</translation>
        </message>
        <message>
            <source>The usage ledger for {month} lost {counted}: it was changed outside the app; they still count toward the budgets.</source>
            <translation>{month}的用量账本丢失了 {counted}：它在应用之外被修改；这些仍计入预算。</translation>
        </message>
        <message>
            <source>January</source>
            <translation>1月</translation>
        </message>
        <message>
            <source>February</source>
            <translation>2月</translation>
        </message>
        <message>
            <source>March</source>
            <translation>3月</translation>
        </message>
        <message>
            <source>April</source>
            <translation>4月</translation>
        </message>
        <message>
            <source>June</source>
            <translation>6月</translation>
        </message>
        <message>
            <source>July</source>
            <translation>7月</translation>
        </message>
        <message>
            <source>August</source>
            <translation>8月</translation>
        </message>
        <message>
            <source>September</source>
            <translation>9月</translation>
        </message>
        <message>
            <source>October</source>
            <translation>10月</translation>
        </message>
        <message>
            <source>November</source>
            <translation>11月</translation>
        </message>
        <message>
            <source>December</source>
            <translation>12月</translation>
        </message>
        <message>
            <source>{day} {month}</source>
            <translation>{month}{day}日</translation>
        </message>
        <message>
            <source>{month} {year}</source>
            <translation>{year}年{month}</translation>
        </message>
        <message>
            <source>Subagent</source>
            <translation>子智能体</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>Cron</source>
            <translation>计划任务</translation>
        </message>
        <message>
            <source>chat</source>
            <extracomment>The ledger's sources as the summary names them (others: as the ledger names them).</extracomment>
            <translation>聊天</translation>
        </message>
        <message>
            <source>subagent</source>
            <translation>子智能体</translation>
        </message>
        <message>
            <source>title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>consolidation</source>
            <translation>记忆归档</translation>
        </message>
        <message>
            <source>dream</source>
            <translation>梦境整理</translation>
        </message>
        <message>
            <source>overall</source>
            <translation>总</translation>
        </message>
        <message>
            <source>today's {whose} budget is {limit} and {spent} are spent</source>
            <translation>今天的{whose}预算为 {limit}，已用 {spent}</translation>
        </message>
        <message>
            <source>this month's {whose} budget is {limit} and {spent} are spent</source>
            <translation>本月的{whose}预算为 {limit}，已用 {spent}</translation>
        </message>
        <message>
            <source>today's {whose} budget is ${limit} and ${spent} is spent</source>
            <translation>今天的{whose}预算为 ${limit}，已用 ${spent}</translation>
        </message>
        <message>
            <source>this month's {whose} budget is ${limit} and ${spent} is spent</source>
            <translation>本月的{whose}预算为 ${limit}，已用 ${spent}</translation>
        </message>
        <message>
            <source>{name} wants to run; {budget}</source>
            <translation>{name}想要运行；{budget}</translation>
        </message>
        <message>
            <source>{name} wants ~{tokens} tokens; {budget}</source>
            <translation>{name}需要约 {tokens} 个令牌；{budget}</translation>
        </message>
        <message>
            <source>{name} wants more tokens; {budget}</source>
            <translation>{name}需要更多令牌；{budget}</translation>
        </message>
        <message>
            <source>Paused by the budget: {message}.</source>
            <translation>因预算暂停：{message}。</translation>
        </message>
        <message>
            <source>Paused by the budget: {message}</source>
            <translation>因预算暂停：{message}</translation>
        </message>
        <message>
            <source>{share} of the {whose} token budget for today is spent.</source>
            <translation>今天的{whose}令牌预算已用 {share}。</translation>
        </message>
        <message>
            <source>{share} of the {whose} token budget for this month is spent.</source>
            <translation>本月的{whose}令牌预算已用 {share}。</translation>
        </message>
        <message>
            <source>{share} of the {whose} budget for today is spent.</source>
            <translation>今天的{whose}预算已用 {share}。</translation>
        </message>
        <message>
            <source>{share} of the {whose} budget for this month is spent.</source>
            <translation>本月的{whose}预算已用 {share}。</translation>
        </message>
        <message>
            <source>this {source} run was stopped: it used far more than usual</source>
            <translation>这次{source}运行已被停止：用量远超平常</translation>
        </message>
        <message>
            <source>Stopped a {source} run: it used {used} tokens, {ratio}× its usual {usual}.</source>
            <translation>已停止一次{source}运行：它用了 {used} 个令牌，是平常 {usual} 的 {ratio} 倍。</translation>
        </message>
        <message>
            <source>The spend cap is reached: {budget}. Raise it in Settings › Usage &amp; budgets.</source>
            <translation>已达到花费上限：{budget}。可在“设置 › 用量与预算”中提高上限。</translation>
        </message>
        <message>
            <source>Everything</source>
            <translation>全部</translation>
        </message>
        <message>
            <source>Subagents</source>
            <translation>子智能体</translation>
        </message>
        <message>
            <source>Dream</source>
            <translation>梦境整理</translation>
        </message>
        <message>
            <source>Scheduled jobs</source>
            <translation>计划任务</translation>
        </message>
        <message>
            <source>Consolidation</source>
            <translation>记忆归档</translation>
        </message>
        <message>
            <source>Tokens / day</source>
            <translation>令牌 / 天</translation>
        </message>
        <message>
            <source>Tokens / month</source>
            <translation>令牌 / 月</translation>
        </message>
        <message>
            <source>$ / day</source>
            <translation>美元 / 天</translation>
        </message>
        <message>
            <source>$ / month</source>
            <translation>美元 / 月</translation>
        </message>
        <message>
            <source>heartbeat</source>
            <translation>心跳</translation>
        </message>
        <message>
            <source>cron</source>
            <translation>计划任务</translation>
        </message>
        <message>
            <source>{share} of {limit} tokens</source>
            <translation>{share}（上限 {limit} 令牌）</translation>
        </message>
        <message>
            <source>{share} of {limit}</source>
            <translation>{share}（上限 {limit}）</translation>
        </message>
        <message>
            <source>deleted chat</source>
            <translation>已删除的聊天</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>Today</source>
            <translation>今天</translation>
        </message>
        <message>
            <source>against the day</source>
            <translation>占每日预算</translation>
        </message>
        <message>
            <source>This month</source>
            <translation>本月</translation>
        </message>
        <message>
            <source>against the month</source>
            <translation>占每月预算</translation>
        </message>
        <message>
            <source>Top chats this month</source>
            <translation>本月用量最多的聊天</translation>
        </message>
        <message>
            <source>Top jobs this month</source>
            <translation>本月用量最多的任务</translation>
        </message>
        <message>
            <source>{count} tokens</source>
            <translation>{count} 令牌</translation>
        </message>
        <message>
            <source>* models without a known price are not in the dollar figures.</source>
            <translation>* 没有已知价格的模型不计入美元金额。</translation>
        </message>
        <message>
            <source>{row} {column}</source>
            <translation>{row} {column}</translation>
        </message>
        <message>
            <source>“{text}” is not a number</source>
            <translation>“{text}”不是数字</translation>
        </message>
        <message>
            <source>must not be negative</source>
            <translation>不能为负数</translation>
        </message>
        <message>
            <source>Every model call is counted in a ledger beside the config (usage/&lt;workspace id&gt;/ledger-*.jsonl), out of the agent's reach. Budgets pause Dream, the heartbeat, scheduled jobs and consolidation before they pass a limit and ask you; chats are warned, and stopped only with a hard cap.</source>
            <translation>每次模型调用都会记入配置旁的账本（usage/&lt;workspace id&gt;/ledger-*.jsonl），智能体无法触及。预算会在梦境整理、心跳、计划任务和记忆归档超出上限之前将其暂停并询问你；聊天只会收到警告，仅在设置硬上限时才会被停止。</translation>
        </message>
        <message>
            <source>Spend per day</source>
            <translation>每日花费</translation>
        </message>
        <message>
            <source>Tokens</source>
            <translation>令牌</translation>
        </message>
        <message>
            <source>Cost ($)</source>
            <translation>费用（美元）</translation>
        </message>
        <message>
            <source>Chart shows</source>
            <translation>图表显示</translation>
        </message>
        <message>
            <source>Refresh usage</source>
            <translation>刷新用量</translation>
        </message>
        <message>
            <source>Usage summary</source>
            <translation>用量摘要</translation>
        </message>
        <message>
            <source>{message}. It was kept paused.</source>
            <translation>{message}。已保持暂停。</translation>
        </message>
        <message>
            <source>{message}.</source>
            <translation>{message}。</translation>
        </message>
        <message>
            <source>Run once</source>
            <translation>运行一次</translation>
        </message>
        <message>
            <source>Raise</source>
            <translation>提高预算</translation>
        </message>
        <message>
            <source>Keep paused</source>
            <translation>保持暂停</translation>
        </message>
        <message>
            <source>Paused by the budget</source>
            <translation>因预算而暂停</translation>
        </message>
        <message>
            <source>{message}. Open nanobot to decide.</source>
            <translation>{message}。请打开 nanobot 决定。</translation>
        </message>
        <message>
            <source>Budgets</source>
            <translation>预算</translation>
        </message>
        <message>
            <source>A background run was stopped</source>
            <translation>一个后台运行已被停止</translation>
        </message>
        <message>
            <source>Open chat</source>
            <translation>打开聊天</translation>
        </message>
        <message>
            <source>Leave a field empty for no limit, or start from a preset on the right.</source>
            <translation>留空表示不限制，也可以从右侧的预设开始。</translation>
        </message>
        <message>
            <source>no limit</source>
            <translation>不限制</translation>
        </message>
        <message>
            <source>Warn chats at</source>
            <translation>聊天警告阈值</translation>
        </message>
        <message>
            <source>Stop chats at the limit (hard cap) instead of only warning</source>
            <translation>达到上限时停止聊天（硬上限），而不只是警告</translation>
        </message>
        <message>
            <source>Hard cap for chats</source>
            <translation>聊天硬上限</translation>
        </message>
        <message>
            <source> × usual</source>
            <translation> × 平常用量</translation>
        </message>
        <message>
            <source>Stop a background run past</source>
            <translation>后台运行超过此值时停止</translation>
        </message>
        <message>
            <source>Budget presets</source>
            <translation>预算预设</translation>
        </message>
        <message>
            <source>Presets</source>
            <translation>预设</translation>
        </message>
        <message>
            <source>Budget preset: {name}</source>
            <translation>预算预设：{name}</translation>
        </message>
        <message>
            <source>Budget preset in use</source>
            <translation>正在使用的预算预设</translation>
        </message>
        <message>
            <source>“{name}” filled in. Review the fields, then Save.</source>
            <translation>已填入“{name}”。请检查各字段，然后保存。</translation>
        </message>
        <message>
            <source>Now: {name}</source>
            <translation>当前：{name}</translation>
        </message>
        <message>
            <source>Now: your own</source>
            <translation>当前：自定义</translation>
        </message>
        <message>
            <source>Saved. Budgets apply from the next model call.</source>
            <translation>已保存。预算从下一次模型调用开始生效。</translation>
        </message>
        <message>
            <source>Spend per day chart</source>
            <translation>每日花费图表</translation>
        </message>
        <message>
            <source>{month}: {total} over {days} day(s), by source: {sources}</source>
            <translation>{month}：{days} 天共 {total}，按来源：{sources}</translation>
        </message>
        <message>
            <source>No spend recorded yet</source>
            <translation>尚无花费记录</translation>
        </message>
        <message>
            <source>{source}: {amount}</source>
            <translation>{source}：{amount}</translation>
        </message>
        <message>
            <source>runs a shell command</source>
            <extracomment>Channels whose chats are the person at the machine: the window and the terminal.</extracomment>
            <translation>要运行一条 shell 命令</translation>
        </message>
        <message>
            <source>types a command into a running program (allowing it allows exec too)</source>
            <translation>要向正在运行的程序输入命令（允许它也会允许 exec）</translation>
        </message>
        <message>
            <source>calls a tool of an MCP server</source>
            <translation>要调用 MCP 服务器的工具</translation>
        </message>
        <message>
            <source>changes the agent's own setting {key} to {value}</source>
            <translation>要把智能体自己的设置 {key} 改为 {value}</translation>
        </message>
        <message>
            <source>reads your other chats from this chat</source>
            <translation>要从此聊天读取你的其他聊天</translation>
        </message>
        <message>
            <source>sends a message into your chat {chat}</source>
            <translation>要向你的聊天 {chat} 发送消息</translation>
        </message>
        <message>
            <source>writes outside the workspace: {target}</source>
            <translation>要写入工作区之外：{target}</translation>
        </message>
        <message>
            <source>{reason} without the sandbox</source>
            <translation>{reason}（不在沙箱中）</translation>
        </message>
        <message>
            <source>{reason} — {warning}</source>
            <translation>{reason}——{warning}</translation>
        </message>
        <message>
            <source>That message is no longer in this chat.</source>
            <translation>该消息已不在此聊天中。</translation>
        </message>
        <message>
            <source>There is no message to answer again in this chat.</source>
            <translation>此聊天中没有可重新回答的消息。</translation>
        </message>
        <message>
            <source>That version is damaged and cannot be shown (it is kept as it is).</source>
            <translation>该版本已损坏，无法显示（已原样保留）。</translation>
        </message>
        <message>
            <source>Wait for the current answer (or stop it) first.</source>
            <translation>请先等待当前回答完成（或停止它）。</translation>
        </message>
        <message>
            <source>That version is no longer in this chat.</source>
            <translation>该版本已不在此聊天中。</translation>
        </message>
        <message>
            <source>Markdown (*.md)</source>
            <translation>Markdown 文件 (*.md)</translation>
        </message>
        <message>
            <source>JSON (*.json)</source>
            <translation>JSON 文件 (*.json)</translation>
        </message>
        <message>
            <source>{model} (this chat)</source>
            <translation>{model}（此聊天）</translation>
        </message>
        <message>
            <source>The preset was not set: {error}</source>
            <translation>未能设置预设：{error}</translation>
        </message>
        <message>
            <source>Checking…</source>
            <translation>正在检查…</translation>
        </message>
        <message>
            <source>Model not changed: {error}</source>
            <translation>模型未更改：{error}</translation>
        </message>
        <message>
            <source>Switching…</source>
            <translation>正在切换…</translation>
        </message>
        <message>
            <source>Default not changed: {error}</source>
            <translation>默认模型未更改：{error}</translation>
        </message>
        <message>
            <source>Now using {model}, but it was not saved as the default: {error}</source>
            <translation>已在使用 {model}，但未能保存为默认模型：{error}</translation>
        </message>
        <message>
            <source>New chats now use {model}.</source>
            <translation>新聊天现在使用 {model}。</translation>
        </message>
        <message>
            <source>Only desktop chats can be answered again here.</source>
            <translation>此处只能重新回答桌面聊天。</translation>
        </message>
        <message>
            <source>Could not change the chat: {error}</source>
            <translation>无法修改聊天：{error}</translation>
        </message>
        <message>
            <source>The previous version is kept: switch with ‹ › under your message.</source>
            <translation>已保留之前的版本：可用你消息下方的 ‹ › 切换。</translation>
        </message>
        <message>
            <source>The previous version was too long to keep here: it is in the chat list.</source>
            <translation>之前的版本太长，无法保留在此处：它在聊天列表中。</translation>
        </message>
        <message>
            <source>Could not switch versions: {error}</source>
            <translation>无法切换版本：{error}</translation>
        </message>
        <message>
            <source>Version {number} of {total}</source>
            <translation>第 {number} 版，共 {total} 版</translation>
        </message>
        <message>
            <source>Nothing to export yet.</source>
            <translation>暂无可导出的内容。</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>导出聊天</translation>
        </message>
        <message>
            <source>Not exported: {error}</source>
            <translation>未导出：{error}</translation>
        </message>
        <message>
            <source>Exported to {name}.</source>
            <translation>已导出到 {name}。</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>允许一次</translation>
        </message>
        <message>
            <source>Allow for this chat</source>
            <translation>在此聊天中允许</translation>
        </message>
        <message>
            <source>Always allow this tool</source>
            <translation>始终允许此工具</translation>
        </message>
        <message>
            <source>(no arguments)</source>
            <translation>（无参数）</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>需要审批</translation>
        </message>
        <message>
            <source>Tool arguments</source>
            <translation>工具参数</translation>
        </message>
        <message>
            <source>Allow {tool}?</source>
            <translation>允许 {tool} 吗？</translation>
        </message>
        <message>
            <source>The agent wants to use {tool}: it {reason}.</source>
            <translation>智能体想使用 {tool}：它{reason}。</translation>
        </message>
        <message>
            <source>{count} more waiting</source>
            <translation>还有 {count} 个等待中</translation>
        </message>
        <message>
            <source>Notice</source>
            <translation>通知</translation>
        </message>
        <message>
            <source>Editing a sent message</source>
            <translation>正在编辑已发送的消息</translation>
        </message>
        <message>
            <source>Editing a sent message — Send starts a new version from there; the current one is kept as an earlier version.</source>
            <translation>正在编辑已发送的消息 — 发送后将从该处开始新版本；当前版本会保留为较早的版本。</translation>
        </message>
        <message>
            <source>Cancel edit</source>
            <translation>取消编辑</translation>
        </message>
        <message>
            <source>Cancel the edit</source>
            <translation>取消编辑</translation>
        </message>
        <message>
            <source>Chat title</source>
            <translation>聊天标题</translation>
        </message>
        <message>
            <source>Channel</source>
            <translation>渠道</translation>
        </message>
        <message>
            <source>Chat actions</source>
            <translation>聊天操作</translation>
        </message>
        <message>
            <source>Regenerate, export</source>
            <translation>重新生成、导出</translation>
        </message>
        <message>
            <source>Regenerate last answer</source>
            <translation>重新生成最后的回答</translation>
        </message>
        <message>
            <source>Export as Markdown…</source>
            <translation>导出为 Markdown…</translation>
        </message>
        <message>
            <source>Export as JSON…</source>
            <translation>导出为 JSON…</translation>
        </message>
        <message>
            <source>{what} copied</source>
            <translation>{what} 已复制</translation>
        </message>
        <message>
            <source>from {channel}</source>
            <translation>来自 {channel}</translation>
        </message>
        <message>
            <source>{prompt} in · {completion} out</source>
            <translation>输入 {prompt} · 输出 {completion}</translation>
        </message>
        <message>
            <source>{prompt} in · {completion} out · {cost}</source>
            <translation>输入 {prompt} · 输出 {completion} · {cost}</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source>(no result: the turn was interrupted)</source>
            <translation>（无结果：本轮被中断）</translation>
        </message>
        <message>
            <source>Generated image</source>
            <translation>生成的图片</translation>
        </message>
        <message>
            <source>Reminder</source>
            <translation>提醒</translation>
        </message>
        <message>
            <source>Reminder · {label}</source>
            <translation>提醒 · {label}</translation>
        </message>
        <message>
            <source>Periodic check</source>
            <translation>定期检查</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>code</source>
            <translation>代码</translation>
        </message>
        <message>
            <source>Start the conversation below.</source>
            <translation>在下方开始对话。</translation>
        </message>
        <message>
            <source>{seconds} s</source>
            <translation>{seconds} 秒</translation>
        </message>
        <message>
            <source>{minutes} m {seconds} s</source>
            <translation>{minutes} 分 {seconds} 秒</translation>
        </message>
        <message>
            <source>ended</source>
            <translation>已结束</translation>
        </message>
        <message>
            <source> · session {session} ({state})</source>
            <translation> · 会话 {session}（{state}）</translation>
        </message>
        <message>
            <source> · session {session}</source>
            <translation> · 会话 {session}</translation>
        </message>
        <message>
            <source>terminate</source>
            <translation>终止</translation>
        </message>
        <message>
            <source>wait for {text}</source>
            <translation>等待 {text}</translation>
        </message>
        <message>
            <source>wait for the end</source>
            <translation>等待结束</translation>
        </message>
        <message>
            <source>read output</source>
            <translation>读取输出</translation>
        </message>
        <message>
            <source>{action} · close input</source>
            <translation>{action} · 关闭输入</translation>
        </message>
        <message>
            <source>pasted image</source>
            <translation>粘贴的图片</translation>
        </message>
        <message>
            <source>[file: {name}]</source>
            <translation>[文件：{name}]</translation>
        </message>
        <message>
            <source>[image: {name}]</source>
            <translation>[图片：{name}]</translation>
        </message>
        <message>
            <source>waiting for your approval…</source>
            <translation>等待你的审批…</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>运行中…</translation>
        </message>
        <message>
            <source>error {duration}</source>
            <translation>出错 {duration}</translation>
        </message>
        <message>
            <source>error</source>
            <translation>出错</translation>
        </message>
        <message>
            <source>(running…)</source>
            <translation>（运行中…）</translation>
        </message>
        <message>
            <source>(empty)</source>
            <translation>（空）</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>参数</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>结果</translation>
        </message>
        <message>
            <source>Queued — it will be answered after the current reply.</source>
            <translation>已排队 — 将在当前回复之后回答。</translation>
        </message>
        <message>
            <source>(stopped before it finished)</source>
            <translation>（在完成前被停止）</translation>
        </message>
        <message>
            <source>{reason} Waiting for the model… (retrying {attempt}/{attempts})</source>
            <translation>{reason} 正在等待模型…（重试 {attempt}/{attempts}）</translation>
        </message>
        <message>
            <source>↪ {notice}</source>
            <translation>↪ {notice}</translation>
        </message>
        <message>
            <source>Working…</source>
            <translation>处理中…</translation>
        </message>
        <message>
            <source>(no answer)</source>
            <translation>（无回答）</translation>
        </message>
        <message>
            <source>Code copied</source>
            <translation>代码已复制</translation>
        </message>
        <message>
            <source>Message copied</source>
            <translation>消息已复制</translation>
        </message>
        <message>
            <source>Selection copied</source>
            <translation>所选内容已复制</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>复制消息</translation>
        </message>
        <message>
            <source>Copy code block {number}</source>
            <translation>复制代码块 {number}</translation>
        </message>
        <message>
            <source>Copy code</source>
            <translation>复制代码</translation>
        </message>
        <message>
            <source>Edit and resend…</source>
            <translation>编辑并重新发送…</translation>
        </message>
        <message>
            <source>Show version {number} of {total}</source>
            <translation>显示第 {number} 版（共 {total} 版）</translation>
        </message>
        <message>
            <source>Regenerate answer</source>
            <translation>重新生成回答</translation>
        </message>
        <message>
            <source>Preview {path}</source>
            <translation>预览 {path}</translation>
        </message>
        <message>
            <source>Hide details</source>
            <translation>隐藏详情</translation>
        </message>
        <message>
            <source>Show details</source>
            <translation>显示详情</translation>
        </message>
        <message>
            <source>Hide reasoning</source>
            <translation>隐藏推理过程</translation>
        </message>
        <message>
            <source>Show reasoning</source>
            <translation>显示推理过程</translation>
        </message>
        <message>
            <source>The server refused the connection (is it running, and is the port right?)</source>
            <translation>服务器拒绝了连接（它是否在运行？端口是否正确？）</translation>
        </message>
        <message>
            <source>The server's name could not be found (check the host name)</source>
            <translation>找不到服务器（请检查主机名）</translation>
        </message>
        <message>
            <source>The server did not answer in time</source>
            <translation>服务器未能及时响应</translation>
        </message>
        <message>
            <source>The secure connection failed ({error})</source>
            <translation>安全连接失败（{error}）</translation>
        </message>
        <message>
            <source>All</source>
            <extracomment>The filters, in the order the view offers them, with their labels.</extracomment>
            <translation>全部</translation>
        </message>
        <message>
            <source>Active</source>
            <extracomment>Each status (:func:`status_of`) in words.</extracomment>
            <translation>活动</translation>
        </message>
        <message>
            <source>Paused</source>
            <translation>已暂停</translation>
        </message>
        <message>
            <source>Needs attention</source>
            <translation>需要关注</translation>
        </message>
        <message>
            <source>System</source>
            <translation>系统</translation>
        </message>
        <message>
            <source>Next run</source>
            <extracomment>The sort orders, with their labels.</extracomment>
            <translation>下次运行</translation>
        </message>
        <message>
            <source>Last run</source>
            <translation>上次运行</translation>
        </message>
        <message>
            <source>Name</source>
            <extracomment>The colour of a status that needs attention (light theme, dark theme).</extracomment>
            <translation>名称</translation>
        </message>
        <message>
            <source>last run failed</source>
            <extracomment>The problems that make a row need attention, in words.</extracomment>
            <translation>上次运行失败</translation>
        </message>
        <message>
            <source>delivery failed</source>
            <translation>送达失败</translation>
        </message>
        <message>
            <source>overdue</source>
            <translation>已逾期</translation>
        </message>
        <message>
            <source>Ran</source>
            <translation>已运行</translation>
        </message>
        <message>
            <source>a name cannot be empty</source>
            <extracomment>What ``status:`` accepts: a word → the statuses or problems it stands for. A job whose next run is this far in the past is overdue (the scheduler is not running it). Longest name a rename accepts. The command-line program.</extracomment>
            <translation>名称不能为空</translation>
        </message>
        <message>
            <source>a name has at most {count} characters</source>
            <translation>名称最多 {count} 个字符</translation>
        </message>
        <message>
            <source>{job} is a system job; its name is fixed</source>
            <translation>{job} 是系统任务，名称不可更改</translation>
        </message>
        <message>
            <source>no job with id {job} (deleted elsewhere?)</source>
            <translation>没有 ID 为 {job} 的任务（可能已在别处删除？）</translation>
        </message>
        <message>
            <source>10 min</source>
            <translation>10 分钟</translation>
        </message>
        <message>
            <source>1 hour</source>
            <translation>1 小时</translation>
        </message>
        <message>
            <source>Tomorrow</source>
            <translation>明天</translation>
        </message>
        <message>
            <source>Commands run inside bubblewrap: only the workspace and a private /tmp are writable; your home folder is replaced by a scratch folder (unless you let commands see it) and the config folder is hidden; the agent's sessions, memory history, cron jobs and memory repository stay read-only; the app's processes, the session bus and the keyring are out of reach; processes, memory, file size, /tmp and CPU time are limited; everything a command started ends with it, or with the app.</source>
            <translation>命令在 bubblewrap 中运行：只有工作区和私有的 /tmp 可写；你的主文件夹被替换为临时文件夹（除非你允许命令查看它），配置文件夹被隐藏；智能体的会话、记忆历史、计划任务和记忆仓库保持只读；应用的进程、会话总线和密钥环都无法触及；进程数、内存、文件大小、/tmp 和 CPU 时间均受限制；命令启动的一切都会随命令或应用一同结束。</translation>
        </message>
        <message>
            <source>nanobot Desktop has no sandbox on {name} yet; commands run without one (the safety rules and ask-mode approval still apply)</source>
            <translation>nanobot Desktop 在 {name} 上还没有沙箱；命令将在沙箱外运行（安全规则和询问模式的审批仍然有效）</translation>
        </message>
        <message>
            <source>bubblewrap (bwrap) is not installed; {hint}</source>
            <translation>未安装 bubblewrap（bwrap）；{hint}</translation>
        </message>
        <message>
            <source>bwrap cannot be started ({error}); {hint}</source>
            <translation>无法启动 bwrap（{error}）；{hint}</translation>
        </message>
        <message>
            <source>bwrap could not run a test sandbox ({error})</source>
            <translation>bwrap 无法运行测试沙箱（{error}）</translation>
        </message>
        <message>
            <source>exit code {code}</source>
            <translation>退出码 {code}</translation>
        </message>
        <message>
            <source>bwrap is installed but cannot create a sandbox here ({detail}); the kernel or a security policy (e.g. AppArmor's restriction of unprivileged user namespaces on Ubuntu 24.04+) forbids the namespaces it needs</source>
            <translation>已安装 bwrap，但无法在此创建沙箱（{detail}）；内核或安全策略（例如 Ubuntu 24.04 及以上版本中 AppArmor 对非特权用户命名空间的限制）禁止了它所需的命名空间</translation>
        </message>
        <message>
            <source>no prlimit (util-linux): the file size, CPU and per-process limits are off</source>
            <translation>没有 prlimit（util-linux）：文件大小、CPU 和单进程限制均未启用</translation>
        </message>
        <message>
            <source>bubblewrap older than 0.8: the private /tmp has no size limit</source>
            <translation>bubblewrap 版本低于 0.8：私有 /tmp 没有大小限制</translation>
        </message>
        <message>
            <source>network cut for commands: the session bus uses an abstract socket and this CPU has no socket filter</source>
            <translation>已为命令断开网络：会话总线使用抽象套接字，而此 CPU 没有套接字过滤器</translation>
        </message>
        <message>
            <source>the session bus listens on TCP: turn the network off to keep it out of reach</source>
            <translation>会话总线在 TCP 上监听：请关闭网络，使其无法被访问</translation>
        </message>
        <message>
            <source>Time</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>Current time and conversions between time zones (an official reference server).</source>
            <translation>当前时间以及时区之间的换算（官方参考服务器）。</translation>
        </message>
        <message>
            <source>uv (the uvx command)</source>
            <translation>uv（uvx 命令）</translation>
        </message>
        <message>
            <source>Fetch</source>
            <translation>网页抓取</translation>
        </message>
        <message>
            <source>Fetches web pages and turns them into Markdown (an official reference server).</source>
            <translation>抓取网页并转换为 Markdown（官方参考服务器）。</translation>
        </message>
        <message>
            <source>Reads and changes one Git repository: status, diffs, log, commits.</source>
            <translation>读取并修改一个 Git 仓库：状态、差异、日志、提交。</translation>
        </message>
        <message>
            <source>uv (the uvx command) and the path of a Git repository</source>
            <translation>uv（uvx 命令）以及一个 Git 仓库的路径</translation>
        </message>
        <message>
            <source>Filesystem</source>
            <translation>文件系统</translation>
        </message>
        <message>
            <source>Reads and writes files inside the folders you list (an official reference server).</source>
            <translation>读写你所列文件夹中的文件（官方参考服务器）。</translation>
        </message>
        <message>
            <source>Node.js (the npx command) and the folders to share</source>
            <translation>Node.js（npx 命令）以及要共享的文件夹</translation>
        </message>
        <message>
            <source>Drives a local browser: open pages, click, fill forms, take snapshots.</source>
            <translation>操控本地浏览器：打开页面、点击、填写表单、截取快照。</translation>
        </message>
        <message>
            <source>Node.js (the npx command)</source>
            <translation>Node.js（npx 命令）</translation>
        </message>
        <message>
            <source>GitHub's hosted server: repositories, issues, pull requests.</source>
            <translation>GitHub 托管的服务器：仓库、议题、拉取请求。</translation>
        </message>
        <message>
            <source>a GitHub personal access token (kept in the OS keyring)</source>
            <translation>GitHub 个人访问令牌（保存在系统密钥环中）</translation>
        </message>
        <message>
            <source>Notion's hosted server: search, read and edit your pages and databases.</source>
            <translation>Notion 托管的服务器：搜索、阅读和编辑你的页面与数据库。</translation>
        </message>
        <message>
            <source>a Notion account (sign in in the browser after saving)</source>
            <translation>Notion 账户（保存后在浏览器中登录）</translation>
        </message>
        <message>
            <source>Linear's hosted server: issues, projects and comments.</source>
            <translation>Linear 托管的服务器：议题、项目和评论。</translation>
        </message>
        <message>
            <source>a Linear account (sign in in the browser after saving)</source>
            <translation>Linear 账户（保存后在浏览器中登录）</translation>
        </message>
        <message>
            <source>Searches and reads Microsoft's official documentation.</source>
            <translation>搜索并阅读 Microsoft 官方文档。</translation>
        </message>
        <message>
            <source>network access only</source>
            <translation>只需网络访问</translation>
        </message>
        <message>
            <source>Web search and page contents through Exa's hosted server.</source>
            <translation>通过 Exa 托管的服务器进行网页搜索并获取页面内容。</translation>
        </message>
        <message>
            <source>Agent</source>
            <translation>智能体</translation>
        </message>
        <message>
            <source>How the agent thinks and where it keeps its files.</source>
            <translation>智能体如何思考，以及它把文件存放在哪里。</translation>
        </message>
        <message>
            <source>system timezone ({zone})</source>
            <translation>系统时区（{zone}）</translation>
        </message>
        <message>
            <source>The context window is how much of the conversation the model sees; older turns are archived into memory when it fills. Timezone: an IANA name such as Europe/Berlin; empty means the system's.</source>
            <translation>上下文窗口是模型能看到的对话长度；窗口占满时，较早的轮次会归档到记忆中。时区：IANA 名称，例如 Europe/Berlin；留空表示使用系统时区。</translation>
        </message>
        <message>
            <source>Sessions, memory, skills and reminders live in the workspace. Open an existing nanobot workspace to keep going where you left off; missing starter files are added, yours are never overwritten. A new workspace takes effect after a restart.</source>
            <translation>会话、记忆、技能和提醒都保存在工作区中。打开已有的 nanobot 工作区即可从上次停下的地方继续；缺少的初始文件会被补上，你自己的文件绝不会被覆盖。新的工作区在重启后生效。</translation>
        </message>
        <message>
            <source>{zone} is not a known IANA timezone (e.g. Europe/Berlin)</source>
            <translation>{zone} 不是已知的 IANA 时区（例如 Europe/Berlin）</translation>
        </message>
        <message>
            <source>choose a folder</source>
            <translation>请选择一个文件夹</translation>
        </message>
        <message>
            <source>{path} is a file, not a folder</source>
            <translation>{path} 是文件，不是文件夹</translation>
        </message>
        <message>
            <source>must be smaller than the context window</source>
            <translation>必须小于上下文窗口</translation>
        </message>
        <message>
            <source>First-run setup</source>
            <translation>首次运行设置</translation>
        </message>
        <message>
            <source>Setup progress</source>
            <translation>设置进度</translation>
        </message>
        <message>
            <source>Setup status</source>
            <translation>设置状态</translation>
        </message>
        <message>
            <source>Skip for now</source>
            <translation>暂时跳过</translation>
        </message>
        <message>
            <source>Skip the setup</source>
            <translation>跳过设置</translation>
        </message>
        <message>
            <source>Back</source>
            <translation>上一步</translation>
        </message>
        <message>
            <source>Previous step</source>
            <translation>上一步</translation>
        </message>
        <message>
            <source>Next</source>
            <translation>下一步</translation>
        </message>
        <message>
            <source>Next step</source>
            <translation>下一步</translation>
        </message>
        <message>
            <source>Everything can be changed later in Settings.</source>
            <translation>所有内容以后都可以在设置中更改。</translation>
        </message>
        <message>
            <source>Connect to {provider}</source>
            <translation>连接到 {provider}</translation>
        </message>
        <message>
            <source>Step {number} of {count}</source>
            <translation>第 {number} 步，共 {count} 步</translation>
        </message>
        <message>
            <source>Finish</source>
            <translation>完成</translation>
        </message>
        <message>
            <source>Finish the setup</source>
            <translation>完成设置</translation>
        </message>
        <message>
            <source>Choose a provider first.</source>
            <translation>请先选择一个服务商。</translation>
        </message>
        <message>
            <source>Saved, but the workspace could not be prepared: {error}</source>
            <translation>已保存，但无法准备工作区：{error}</translation>
        </message>
        <message>
            <source>Saved. Added {count} starter file(s). The new workspace is used after a restart.</source>
            <translation>已保存。已添加 {count} 个初始文件。新的工作区将在重启后使用。</translation>
        </message>
        <message>
            <source>Saved. The new workspace is used after a restart.</source>
            <translation>已保存。新的工作区将在重启后使用。</translation>
        </message>
        <message>
            <source>Past runs</source>
            <translation>运行记录</translation>
        </message>
        <message>
            <source>Past runs of the selected automation</source>
            <translation>所选自动化的运行记录</translation>
        </message>
        <message>
            <source>Local trigger</source>
            <translation>本地触发</translation>
        </message>
        <message>
            <source>Run it from a terminal, a script or another program's hook: the command runs the job at once, in its own process, prints what it says, and leaves a receipt here.</source>
            <translation>可在终端、脚本或其他程序的钩子中运行：该命令会在独立进程中立即运行任务，打印其输出，并在这里留下回执。</translation>
        </message>
        <message>
            <source>Command that runs the selected automation</source>
            <translation>运行所选自动化的命令</translation>
        </message>
        <message>
            <source>Copy the command</source>
            <translation>复制命令</translation>
        </message>
        <message>
            <source>Copy status</source>
            <translation>复制状态</translation>
        </message>
        <message>
            <source>Select an automation to see its runs.</source>
            <translation>选择一个自动化以查看其运行记录。</translation>
        </message>
        <message>
            <source>Select an automation</source>
            <translation>选择一个自动化</translation>
        </message>
        <message>
            <source>Past runs of “{name}”</source>
            <translation>“{name}”的运行记录</translation>
        </message>
        <message>
            <source>No runs yet.</source>
            <translation>尚无运行记录。</translation>
        </message>
        <message>
            <source>It ran and left the schedule</source>
            <translation>已运行并移出计划</translation>
        </message>
        <message>
            <source>Copied</source>
            <translation>已复制</translation>
        </message>
        <message>
            <source>Every … minutes</source>
            <translation>每隔 … 分钟</translation>
        </message>
        <message>
            <source>Cron expression</source>
            <translation>Cron 表达式</translation>
        </message>
        <message>
            <source>Once at …</source>
            <translation>在 … 运行一次</translation>
        </message>
        <message>
            <source>New reminders are posted in the desktop's Reminders chat.</source>
            <translation>新的提醒会发布到桌面端的“提醒”聊天中。</translation>
        </message>
        <message>
            <source>Reminder name</source>
            <translation>提醒名称</translation>
        </message>
        <message>
            <source>Reminder message</source>
            <translation>提醒内容</translation>
        </message>
        <message>
            <source>What should I remind you of?</source>
            <translation>要提醒你什么？</translation>
        </message>
        <message>
            <source>Schedule kind</source>
            <translation>计划类型</translation>
        </message>
        <message>
            <source>Schedule value</source>
            <translation>计划值</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>Add reminder</source>
            <translation>添加提醒</translation>
        </message>
        <message>
            <source>Save the reminder</source>
            <translation>保存提醒</translation>
        </message>
        <message>
            <source>Save changes</source>
            <translation>保存更改</translation>
        </message>
        <message>
            <source>'{value}' is not a number of minutes.</source>
            <translation>“{value}”不是有效的分钟数。</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>every {interval}</source>
            <extracomment>The schedule in words (:func:`desktop.core.cron.spec.describe_schedule`), by its first word.</extracomment>
            <translation>每 {interval}</translation>
        </message>
        <message>
            <source>cron {expression}</source>
            <translation>cron {expression}</translation>
        </message>
        <message>
            <source>at {time}</source>
            <translation>于 {time}</translation>
        </message>
        <message>
            <source>{count}d</source>
            <extracomment>An ``every`` interval's unit.</extracomment>
            <translation>{count} 天</translation>
        </message>
        <message>
            <source>{count}h</source>
            <translation>{count} 小时</translation>
        </message>
        <message>
            <source>{count}m</source>
            <translation>{count} 分钟</translation>
        </message>
        <message>
            <source>{count}s</source>
            <translation>{count} 秒</translation>
        </message>
        <message>
            <source>Automations</source>
            <translation>自动化</translation>
        </message>
        <message>
            <source>F2 renames the selected automation, Delete deletes it, the menu key shows its actions</source>
            <translation>F2 重命名所选自动化，Delete 删除它，菜单键显示其操作</translation>
        </message>
        <message>
            <source>words, name:…, schedule:cron, status:paused / failed / overdue / system</source>
            <extracomment>How long the Undo of a delete is offered.</extracomment>
            <translation>关键词、name:…、schedule:cron、status:paused / failed / overdue / system</translation>
        </message>
        <message>
            <source>Everything that runs on a schedule: your reminders, tasks the assistant set up, and the system's own (Dream, heartbeat). Each run leaves a receipt: delivered where, failed why, caught up late, skipped. A one-time reminder stays here for {days} days after it ran. Times are in your time zone.</source>
            <translation>所有按计划运行的内容：你的提醒、助手设置的任务，以及系统自身的任务（梦境整理、心跳）。每次运行都会留下回执：送达何处、失败原因、延迟补跑或已跳过。一次性提醒在运行后会在这里保留 {days} 天。时间均为你所在的时区。</translation>
        </message>
        <message>
            <source>Show</source>
            <translation>显示</translation>
        </message>
        <message>
            <source>Search automations</source>
            <translation>搜索自动化</translation>
        </message>
        <message>
            <source>Sort by</source>
            <translation>排序方式</translation>
        </message>
        <message>
            <source>Memory pages</source>
            <translation>记忆页面</translation>
        </message>
        <message>
            <source>History log</source>
            <translation>历史日志</translation>
        </message>
        <message>
            <source>Dream timeline</source>
            <translation>梦境整理时间线</translation>
        </message>
        <message>
            <source>Dream review</source>
            <translation>梦境整理审阅</translation>
        </message>
        <message>
            <source>The workspace {workspace} does not exist yet. It is created when the assistant first starts; its memory appears here then.</source>
            <translation>工作区 {workspace} 尚不存在。它会在助手首次启动时创建，届时其记忆会显示在这里。</translation>
        </message>
        <message>
            <source>History log ({count} new)</source>
            <translation>历史日志（新增 {count} 条）</translation>
        </message>
        <message>
            <source>Memory history: {notices}</source>
            <translation>记忆历史：{notices}</translation>
        </message>
        <message>
            <source>A Dream proposal that Dream did not write was found and refused; nothing of it was applied.</source>
            <translation>发现一份并非由梦境整理写入的梦境整理提案，已拒绝；其中任何内容都未应用。</translation>
        </message>
        <message>
            <source>Dream review ({count})</source>
            <translation>梦境整理审阅（{count}）</translation>
        </message>
        <message>
            <source>Dream proposes 1 change to your memory. Nothing changes until you review it.</source>
            <translation>梦境整理建议对你的记忆做 1 处更改。在你审阅之前不会有任何改动。</translation>
        </message>
        <message>
            <source>Dream proposes {count} changes to your memory. Nothing changes until you review them.</source>
            <translation>梦境整理建议对你的记忆做 {count} 处更改。在你审阅之前不会有任何改动。</translation>
        </message>
        <message>
            <source>The workspace is now {workspace}. Save or reload your edits here, then choose Refresh to show the new workspace's memory.</source>
            <translation>工作区现在是 {workspace}。请先保存或重新加载这里的编辑，然后选择“刷新”以显示新工作区的记忆。</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>刷新</translation>
        </message>
        <message>
            <source>Refresh the automations</source>
            <translation>刷新自动化列表</translation>
        </message>
        <message>
            <source>Read the automations again (F5)</source>
            <translation>重新读取自动化（F5）</translation>
        </message>
        <message>
            <source>&amp;Show</source>
            <translation>显示(&amp;S)</translation>
        </message>
        <message>
            <source>Searc&amp;h</source>
            <translation>搜索(&amp;H)</translation>
        </message>
        <message>
            <source>S&amp;ort</source>
            <translation>排序(&amp;O)</translation>
        </message>
        <message>
            <source>No automations</source>
            <translation>没有自动化</translation>
        </message>
        <message>
            <source>New</source>
            <translation>新建</translation>
        </message>
        <message>
            <source>New reminder</source>
            <translation>新建提醒</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>立即运行</translation>
        </message>
        <message>
            <source>Run the selected automation now</source>
            <translation>立即运行所选自动化</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <source>Pause or resume the selected automation</source>
            <translation>暂停或恢复所选自动化</translation>
        </message>
        <message>
            <source>Rename the selected automation</source>
            <translation>重命名所选自动化</translation>
        </message>
        <message>
            <source>Rename in place (F2)</source>
            <translation>就地重命名（F2）</translation>
        </message>
        <message>
            <source>Snooze</source>
            <translation>稍后提醒</translation>
        </message>
        <message>
            <source>Remind me of the selected reminder again later</source>
            <translation>稍后再次提醒我所选的提醒</translation>
        </message>
        <message>
            <source>Delete the selected automation</source>
            <translation>删除所选自动化</translation>
        </message>
        <message>
            <source>Delete (Del); Undo brings it back</source>
            <translation>删除（Del）；撤销可恢复</translation>
        </message>
        <message>
            <source>The agent is not running yet; automations show once it is.</source>
            <translation>智能体尚未运行；运行后将显示自动化。</translation>
        </message>
        <message>
            <source>{filter} ({count})</source>
            <translation>{filter}（{count}）</translation>
        </message>
        <message>
            <source>No automations yet.
Ask the assistant in a chat (“remind me every weekday at 9 to stretch”), or add a reminder below.</source>
            <translation>还没有自动化。
可以在聊天中让助手设置（“每个工作日 9 点提醒我伸展一下”），或在下方添加提醒。</translation>
        </message>
        <message>
            <source>No status called “{words}”.
Try status:active, paused, failed or overdue.</source>
            <translation>没有名为“{words}”的状态。
请尝试 status:active、paused、failed 或 overdue。</translation>
        </message>
        <message>
            <source>No automations match this view.
Clear the search or show All.</source>
            <translation>没有符合此视图的自动化。
请清除搜索或显示全部。</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Actions for {name}</source>
            <translation>{name} 的操作</translation>
        </message>
        <message>
            <source>Copy command</source>
            <translation>复制命令</translation>
        </message>
        <message>
            <source>Saved '{name}'.</source>
            <translation>已保存“{name}”。</translation>
        </message>
        <message>
            <source>Running '{name}'…</source>
            <translation>正在运行“{name}”…</translation>
        </message>
        <message>
            <source>Not run: {error}</source>
            <translation>未运行：{error}</translation>
        </message>
        <message>
            <source>Ran '{name}'; its receipt is under Past runs.</source>
            <translation>已运行“{name}”；回执见“运行记录”。</translation>
        </message>
        <message>
            <source>Resumed '{name}'.</source>
            <translation>已恢复“{name}”。</translation>
        </message>
        <message>
            <source>Paused '{name}'.</source>
            <translation>已暂停“{name}”。</translation>
        </message>
        <message>
            <source>Not renamed: {error}</source>
            <translation>未重命名：{error}</translation>
        </message>
        <message>
            <source>Renamed to '{name}'.</source>
            <translation>已重命名为“{name}”。</translation>
        </message>
        <message>
            <source>Not deleted: {error}</source>
            <translation>未删除：{error}</translation>
        </message>
        <message>
            <source>Deleted “{name}”. Its receipts are kept.</source>
            <translation>已删除“{name}”。其回执仍会保留。</translation>
        </message>
        <message>
            <source>Not put back: {error}</source>
            <translation>未恢复：{error}</translation>
        </message>
        <message>
            <source>Put '{name}' back.</source>
            <translation>已恢复“{name}”。</translation>
        </message>
        <message>
            <source>'{name}' has not run yet; there is nothing to snooze.</source>
            <translation>“{name}”尚未运行，没有可稍后提醒的内容。</translation>
        </message>
        <message>
            <source>Snoozed '{name}': back at {time}.</source>
            <translation>已推迟“{name}”：将于 {time} 再次提醒。</translation>
        </message>
        <message>
            <source>Start at login is not supported on this platform yet.</source>
            <translation>此平台暂不支持登录时启动。</translation>
        </message>
        <message>
            <source>A few dollars a month</source>
            <translation>每月几美元</translation>
        </message>
        <message>
            <source>Everything: $5 a month, $0.50 a day. Dream 20,000 and the heartbeat 5,000 tokens a day; scheduled jobs 50,000.</source>
            <translation>全部：每月 5 美元，每天 0.50 美元。梦境整理每天 20,000 令牌，心跳每天 5,000 令牌；计划任务 50,000。</translation>
        </message>
        <message>
            <source>About $20 a month</source>
            <translation>每月约 20 美元</translation>
        </message>
        <message>
            <source>Everything: $20 a month, $2 a day. Dream 50,000 and the heartbeat 10,000 tokens a day; scheduled jobs 200,000.</source>
            <translation>全部：每月 20 美元，每天 2 美元。梦境整理每天 50,000 令牌，心跳每天 10,000 令牌；计划任务 200,000。</translation>
        </message>
        <message>
            <source>About $100 a month</source>
            <translation>每月约 100 美元</translation>
        </message>
        <message>
            <source>Everything: $100 a month, $10 a day. Dream 200,000 and the heartbeat 50,000 tokens a day; scheduled jobs 1,000,000.</source>
            <translation>全部：每月 100 美元，每天 10 美元。梦境整理每天 200,000 令牌，心跳每天 50,000 令牌；计划任务 1,000,000。</translation>
        </message>
        <message>
            <source>No limit</source>
            <translation>不限制</translation>
        </message>
        <message>
            <source>Every field empty: nothing is paused or stopped for spend.</source>
            <translation>所有字段留空：不会因花费而暂停或停止任何内容。</translation>
        </message>
        <message>
            <source>Not running. Enable it and save: it connects (or use Connect).</source>
            <translation>未运行。启用并保存后即会连接（也可点“连接”）。</translation>
        </message>
        <message>
            <source>WhatsApp is not linked to the bridge yet</source>
            <translation>WhatsApp 尚未关联到桥接服务</translation>
        </message>
        <message>
            <source>On your phone open WhatsApp → Settings → Linked devices → Link a device</source>
            <translation>在手机上打开 WhatsApp → 设置 → 已关联设备 → 关联新设备</translation>
        </message>
        <message>
            <source>{steps} and scan the QR code (shown in Settings → Channels → WhatsApp, by `nanobot-desktop channels login` and in the bridge's terminal).</source>
            <translation>{steps}，然后扫描二维码（显示在 设置 → 渠道 → WhatsApp、`nanobot-desktop channels login` 以及桥接服务的终端中）。</translation>
        </message>
        <message>
            <source>Delete the bridge's auth folder (whatsapp-auth), restart the bridge and scan its new QR code.</source>
            <translation>请删除桥接服务的认证文件夹（whatsapp-auth），重启桥接服务并扫描新的二维码。</translation>
        </message>
        <message>
            <source>The bridge address {url} is not a ws:// address.</source>
            <translation>桥接地址 {url} 不是 ws:// 地址</translation>
        </message>
        <message>
            <source>Set Bridge address to the bridge's WebSocket, e.g. ws://localhost:3001.</source>
            <translation>请把桥接地址设为桥接服务的 WebSocket，例如 ws://localhost:3001。</translation>
        </message>
        <message>
            <source>Set Bridge token (Settings → Channels → WhatsApp) to the BRIDGE_TOKEN the bridge was started with.</source>
            <translation>请把桥接令牌（设置 → 渠道 → WhatsApp）设为桥接服务启动时使用的 BRIDGE_TOKEN。</translation>
        </message>
        <message>
            <source>The WhatsApp bridge refused the token.</source>
            <translation>WhatsApp 桥接服务拒绝了该令牌</translation>
        </message>
        <message>
            <source>The WhatsApp bridge wants a token.</source>
            <translation>WhatsApp 桥接服务需要令牌</translation>
        </message>
        <message>
            <source>The WhatsApp bridge closed the connection</source>
            <translation>WhatsApp 桥接服务关闭了连接</translation>
        </message>
        <message>
            <source>The WhatsApp bridge closed the connection ({detail})</source>
            <translation>WhatsApp 桥接服务关闭了连接（{detail}）</translation>
        </message>
        <message>
            <source>The bridge address is not a valid WebSocket address.</source>
            <translation>桥接地址不是有效的 WebSocket 地址</translation>
        </message>
        <message>
            <source>Connected to the WhatsApp bridge</source>
            <translation>已连接到 WhatsApp 桥接服务</translation>
        </message>
        <message>
            <source>{found}, but {problem}. {hint}</source>
            <translation>{found}，但{problem}。{hint}</translation>
        </message>
        <message>
            <source>WhatsApp logged the bridge out.</source>
            <translation>WhatsApp 已将桥接服务登出</translation>
        </message>
        <message>
            <source>WhatsApp logged the bridge out</source>
            <translation>WhatsApp 已将桥接服务登出</translation>
        </message>
        <message>
            <source>The bridge lost its connection to WhatsApp</source>
            <translation>桥接服务与 WhatsApp 的连接已断开</translation>
        </message>
        <message>
            <source>It reconnects by itself; answers wait until it is back.</source>
            <translation>它会自动重连；回复会等到连接恢复后再发送。</translation>
        </message>
        <message>
            <source>On your phone open WeChat → + → Scan</source>
            <translation>在手机上打开微信 → + → 扫一扫</translation>
        </message>
        <message>
            <source>A code that expires unscanned is replaced by a new one here.</source>
            <translation>二维码过期未扫时，这里会换上新的二维码。</translation>
        </message>
        <message>
            <source>How to get it</source>
            <translation>获取方法</translation>
        </message>
        <message>
            <source>{channel} channel status</source>
            <translation>{channel} 渠道状态</translation>
        </message>
        <message>
            <source>Open {channel} on your phone</source>
            <translation>在手机上打开 {channel}</translation>
        </message>
        <message>
            <source>What you need from {channel}</source>
            <translation>需要从 {channel} 获取的信息</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>测试连接</translation>
        </message>
        <message>
            <source>Test the {channel} connection</source>
            <translation>测试 {channel} 连接</translation>
        </message>
        <message>
            <source>A cheap real call with the values shown here (not saved)</source>
            <translation>用这里填写的值发起一次低成本的真实调用（不会保存）</translation>
        </message>
        <message>
            <source>Connect</source>
            <translation>连接</translation>
        </message>
        <message>
            <source>Connect or disconnect {channel}</source>
            <translation>连接或断开 {channel}</translation>
        </message>
        <message>
            <source>{channel} test result</source>
            <translation>{channel} 测试结果</translation>
        </message>
        <message>
            <source>Who may talk to the agent</source>
            <translation>谁可以与智能体对话</translation>
        </message>
        <message>
            <source>Advanced</source>
            <translation>高级</translation>
        </message>
        <message>
            <source>{channel} advanced</source>
            <translation>{channel} 高级设置</translation>
        </message>
        <message>
            <source>Enable the {channel} channel</source>
            <translation>启用 {channel} 渠道</translation>
        </message>
        <message>
            <source>one entry per line</source>
            <translation>每行一项</translation>
        </message>
        <message>
            <source>User IDs or names allowed to talk to the bot, one per line.</source>
            <translation>允许与机器人对话的用户 ID 或名称，每行一个。</translation>
        </message>
        <message>
            <source>Kept as they are (nanobot settings not used or not edited here): {names}.</source>
            <translation>保持原样（此处不使用或不编辑的 nanobot 设置）：{names}。</translation>
        </message>
        <message>
            <source>The agent is not running yet.</source>
            <translation>智能体尚未运行。</translation>
        </message>
        <message>
            <source>Disconnect</source>
            <translation>断开</translation>
        </message>
        <message>
            <source>{reason}: scan the QR code below.</source>
            <translation>{reason}：请扫描下方二维码。</translation>
        </message>
        <message>
            <source>Linked: your {channel} account is linked.</source>
            <translation>已关联：你的 {channel} 账号已关联。</translation>
        </message>
        <message>
            <source>Connected as {account}.</source>
            <translation>已连接，账号：{account}。</translation>
        </message>
        <message>
            <source>Connected.</source>
            <translation>已连接。</translation>
        </message>
        <message>
            <source>Connecting…</source>
            <translation>正在连接…</translation>
        </message>
        <message>
            <source>Disconnected: {reason}. {hint}</source>
            <translation>已断开：{reason}。{hint}</translation>
        </message>
        <message>
            <source>Cannot run: {reason}. {hint}</source>
            <translation>无法运行：{reason}。{hint}</translation>
        </message>
        <message>
            <source>Testing…</source>
            <translation>正在测试…</translation>
        </message>
        <message>
            <source>This channel has no connection test yet.</source>
            <translation>此渠道暂不支持连接测试。</translation>
        </message>
        <message>
            <source>It does not work: {error}</source>
            <translation>连接失败：{error}</translation>
        </message>
        <message>
            <source>{reason}.</source>
            <translation>{reason}。</translation>
        </message>
        <message>
            <source>{reason}. {hint}</source>
            <translation>{reason}。{hint}</translation>
        </message>
        <message>
            <source>Installing {channel} support…</source>
            <translation>正在安装 {channel} 支持组件…</translation>
        </message>
        <message>
            <source>The install failed: {error}</source>
            <translation>安装失败：{error}</translation>
        </message>
        <message>
            <source>Eyes</source>
            <translation>眼睛</translation>
        </message>
        <message>
            <source>Thumbs up</source>
            <translation>点赞</translation>
        </message>
        <message>
            <source>Thinking face</source>
            <translation>思考</translation>
        </message>
        <message>
            <source>Writing hand</source>
            <translation>写字的手</translation>
        </message>
        <message>
            <source>Hourglass</source>
            <translation>沙漏</translation>
        </message>
        <message>
            <source>Wrench</source>
            <translation>扳手</translation>
        </message>
        <message>
            <source>Lightning</source>
            <translation>闪电</translation>
        </message>
        <message>
            <source>Fire</source>
            <translation>火焰</translation>
        </message>
        <message>
            <source>OK hand</source>
            <translation>OK 手势</translation>
        </message>
        <message>
            <source>Folded hands</source>
            <translation>双手合十</translation>
        </message>
        <message>
            <source>Saluting face</source>
            <translation>敬礼</translation>
        </message>
        <message>
            <source>Technologist</source>
            <translation>程序员</translation>
        </message>
        <message>
            <source>Nerd face</source>
            <translation>书呆子</translation>
        </message>
        <message>
            <source>Party popper</source>
            <translation>礼花</translation>
        </message>
        <message>
            <source>Red heart</source>
            <translation>红心</translation>
        </message>
        <message>
            <source>Handshake</source>
            <translation>握手</translation>
        </message>
        <message>
            <source>Cool</source>
            <translation>酷</translation>
        </message>
        <message>
            <source>Gear</source>
            <translation>齿轮</translation>
        </message>
        <message>
            <source>Hammer and wrench</source>
            <translation>锤子和扳手</translation>
        </message>
        <message>
            <source>In Telegram, open a chat with @BotFather, send /newbot and choose a name and a user name for your bot. BotFather answers with a token like 123456789:AA…: paste it here. For Allowed senders you need your numeric user id: @userinfobot tells you yours.</source>
            <translation>在 Telegram 中打开与 @BotFather 的对话，发送 /newbot，为机器人取一个名称和用户名。BotFather 会回复一个形如 123456789:AA… 的令牌：粘贴到这里。“允许的发送者”需要填写你的数字用户 ID：@userinfobot 会告诉你。</translation>
        </message>
        <message>
            <source>Open @BotFather</source>
            <translation>打开 @BotFather</translation>
        </message>
        <message>
            <source>In the Developer Portal create an application, open Bot, press Reset Token and paste the token here; on the same page turn on Message Content Intent. Invite the bot with OAuth2 → URL Generator (scope bot; Send Messages, Read Message History, Add Reactions). For Allowed senders turn on Developer Mode in Discord and use Copy User ID on yourself.</source>
            <translation>在 Developer Portal 中创建一个应用，打开 Bot，点击 Reset Token，把令牌粘贴到这里；并在同一页面开启 Message Content Intent。通过 OAuth2 → URL Generator 邀请机器人（scope 选 bot；权限选 Send Messages、Read Message History、Add Reactions）。“允许的发送者”：在 Discord 中开启开发者模式，然后对自己使用“复制用户 ID”。</translation>
        </message>
        <message>
            <source>Discord Developer Portal</source>
            <translation>Discord 开发者门户</translation>
        </message>
        <message>
            <source>Create an app at api.slack.com/apps and turn on Socket Mode: it makes the app token (xapp-…, scope connections:write). Under OAuth &amp; Permissions add the bot scopes chat:write, reactions:write, app_mentions:read and im:history, subscribe to the message.im and app_mention events, then install the app to your workspace and copy the Bot User OAuth Token (xoxb-…). Your member id (for Allowed senders) is in your Slack profile → ⋮ → Copy member ID.</source>
            <translation>在 api.slack.com/apps 创建应用并开启 Socket Mode：这会生成应用令牌（xapp-…，scope 为 connections:write）。在 OAuth &amp; Permissions 中添加机器人 scope：chat:write、reactions:write、app_mentions:read 和 im:history，订阅 message.im 和 app_mention 事件，然后把应用安装到你的 Slack 工作区，并复制 Bot User OAuth Token（xoxb-…）。你的成员 ID（用于“允许的发送者”）在 Slack 个人资料 → ⋮ → 复制成员 ID。</translation>
        </message>
        <message>
            <source>Your Slack apps</source>
            <translation>你的 Slack 应用</translation>
        </message>
        <message>
            <source>Use a mailbox of its own for the agent. Your mail provider's help lists its IMAP (incoming) and SMTP (outgoing) servers; with two-step sign-in (Gmail, Outlook, iCloud) create an app password and use it instead of the account password. Put your own address under Allowed senders.</source>
            <translation>请为智能体使用一个单独的邮箱。你的邮件服务商的帮助页面会列出 IMAP（收信）和 SMTP（发信）服务器；如果开启了两步验证（Gmail、Outlook、iCloud），请创建应用专用密码来代替账号密码。把你自己的邮箱地址填到“允许的发送者”中。</translation>
        </message>
        <message>
            <source>App passwords (Gmail)</source>
            <translation>应用专用密码（Gmail）</translation>
        </message>
        <message>
            <source>Create an account for the bot on your homeserver (any Matrix client can register one), sign in with it in Element and copy its access token from Settings → Help &amp; About → Advanced; or give the account's password instead. Allowed senders are full Matrix ids like @you:matrix.org.</source>
            <translation>在你的 homeserver 上为机器人注册一个账号（任何 Matrix 客户端都能注册），用它登录 Element，从 设置 → 帮助与关于 → 高级 中复制访问令牌；也可以改填该账号的密码。“允许的发送者”填写完整的 Matrix ID，例如 @you:matrix.org。</translation>
        </message>
        <message>
            <source>Matrix clients</source>
            <translation>Matrix 客户端</translation>
        </message>
        <message>
            <source>The app joins your WhatsApp account as a linked device, like WhatsApp Web. Enable the channel and press Connect: a QR code appears here; scan it from WhatsApp on your phone (Settings → Linked devices → Link a device). The session is kept where nanobot keeps it, so one linking serves both. Allowed senders are phone numbers in international form without +.</source>
            <translation>本应用会像 WhatsApp Web 一样，作为已关联设备加入你的 WhatsApp 账号。启用此渠道并点击“连接”：这里会显示二维码；用手机上的 WhatsApp 扫描（设置 → 已关联设备 → 关联新设备）。登录信息保存在 nanobot 保存的位置，关联一次两边都能用。“允许的发送者”填写国际格式、不带 + 的手机号码。</translation>
        </message>
        <message>
            <source>About linked devices</source>
            <translation>关于已关联设备</translation>
        </message>
        <message>
            <source>In the Feishu (or Lark) developer console create a self-built app, add the Bot ability, grant it the im:message permissions, and under Events &amp; Callbacks choose the long connection and add the im.message.receive_v1 event; publish a version. The App ID and App Secret are under Credentials &amp; Basic Info. Allowed senders are open ids (ou_…).</source>
            <translation>在飞书（或 Lark）开发者后台创建企业自建应用，添加“机器人”能力，授予 im:message 相关权限，并在“事件与回调”中选择长连接方式、添加 im.message.receive_v1 事件；然后发布一个版本。App ID 和 App Secret 在“凭证与基础信息”中。“允许的发送者”填写 open id（ou_…）。</translation>
        </message>
        <message>
            <source>Feishu developer console</source>
            <translation>飞书开发者后台</translation>
        </message>
        <message>
            <source>In the DingTalk developer console create an app, add the Robot ability with Stream mode as the way messages arrive, and publish it. Its Client ID and Client Secret are on the app's Credentials page. Allowed senders are staff ids.</source>
            <translation>在钉钉开发者后台创建应用，添加“机器人”能力，消息接收模式选择 Stream 模式，然后发布。Client ID 和 Client Secret 在应用的“凭证”页面。“允许的发送者”填写员工 ID（staffId）。</translation>
        </message>
        <message>
            <source>DingTalk developer console</source>
            <translation>钉钉开发者后台</translation>
        </message>
        <message>
            <source>On the QQ Open Platform register as a developer and create a bot; its AppID and AppSecret are under Development → Settings. Until the bot is published, add yourself to its sandbox to talk to it. Allowed senders are your openid as the bot sees it.</source>
            <translation>在 QQ 开放平台注册成为开发者并创建机器人；AppID 和 AppSecret 在 开发 → 开发设置 中。机器人发布之前，请把自己加入它的沙箱才能与它对话。“允许的发送者”填写机器人看到的你的 openid。</translation>
        </message>
        <message>
            <source>QQ Open Platform</source>
            <translation>QQ 开放平台</translation>
        </message>
        <message>
            <source>Register the agent with your Mochat server: registration gives a claw token (claw_…) and the agent's own user id. Then list the sessions (direct chats) and panels (group channels) it answers in, or "*" for all of them.</source>
            <translation>在你的 Mochat 服务器上注册智能体：注册后会得到一个 claw 令牌（claw_…）和智能体自己的用户 ID。然后列出它要回复的会话（私聊）和面板（群组频道），或填 "*" 表示全部。</translation>
        </message>
        <message>
            <source>The agent listens here and browsers, phones and scripts connect to it with nanobot's WebSocket protocol. To open nanobot's WebUI from a phone on your network, listen on 0.0.0.0, set a token issue secret (the WebUI asks for it at login) and open http://&lt;this computer's address&gt;:&lt;port&gt;/ on the phone. Without a token or secret it only listens on this computer.</source>
            <translation>智能体在这里监听，浏览器、手机和脚本通过 nanobot 的 WebSocket 协议连接它。要在同一网络的手机上打开 nanobot 的 WebUI：监听 0.0.0.0，设置令牌签发密钥（WebUI 登录时会要求输入），然后在手机上打开 http://&lt;本机地址&gt;:&lt;端口&gt;/。未设置令牌或密钥时，只在本机上监听。</translation>
        </message>
        <message>
            <source>nanobot's WebUI</source>
            <translation>nanobot 的 WebUI</translation>
        </message>
        <message>
            <source>Register a phone number for the agent with signal-cli (or link it to your Signal app as a device) and keep its daemon running: signal-cli -a +NUMBER daemon --http localhost:8080. Allowed senders are phone numbers or Signal UUIDs; group rules (dm, group) are nanobot's and kept in config.json.</source>
            <translation>用 signal-cli 为智能体注册一个手机号（或作为设备关联到你的 Signal 应用），并保持它的守护进程运行：signal-cli -a +NUMBER daemon --http localhost:8080。“允许的发送者”填写手机号或 Signal UUID；群组规则（dm、group）属于 nanobot 的设置，保存在 config.json 中。</translation>
        </message>
        <message>
            <source>Run NapCat with the QQ account logged in (scan its QR code in NapCat's web UI), then add a WebSocket server under Network configuration (message format: array) with an access token. Allowed senders are QQ numbers.</source>
            <translation>运行 NapCat 并登录 QQ 账号（在 NapCat 的网页界面中扫码），然后在“网络配置”中添加一个 WebSocket 服务器（消息格式：array），并设置访问令牌。“允许的发送者”填写 QQ 号。</translation>
        </message>
        <message>
            <source>In Mattermost open Integrations → Bot Accounts → Add Bot Account (a system admin may first have to turn bot accounts on), then Create New Token and copy it. Add the bot to the teams and channels it should answer in. The server address is the one you open Mattermost at. Your user id (for Allowed senders) is under your avatar → Profile → ⋮ → Copy user ID.</source>
            <translation>在 Mattermost 中打开 Integrations → Bot Accounts → Add Bot Account（可能需要系统管理员先开启机器人账号），然后点 Create New Token 并复制令牌。把机器人加入它要回复的团队和频道。服务器地址就是你打开 Mattermost 的地址。你的用户 ID（用于“允许的发送者”）在 头像 → 个人资料 → ⋮ → 复制用户 ID。</translation>
        </message>
        <message>
            <source>Mattermost bot accounts</source>
            <translation>Mattermost 机器人账号</translation>
        </message>
        <message>
            <source>Create an Azure Bot (Azure portal → Create a resource → Azure Bot) and copy its Microsoft App ID; under Configuration → Manage Password add a client secret. Set its messaging endpoint to https://&lt;your public host&gt;&lt;path&gt;, forwarded (e.g. by a tunnel) to this port, and add the Microsoft Teams channel. Allowed senders are Entra object ids (Teams admin center or Entra ID → Users → Object ID).</source>
            <translation>创建一个 Azure Bot（Azure 门户 → 创建资源 → Azure Bot）并复制它的 Microsoft App ID；在 配置 → 管理密码 中添加客户端密码。把消息终结点设为 https://&lt;你的公网主机&gt;&lt;path&gt;，并（例如通过隧道）转发到本机的这个端口，然后添加 Microsoft Teams 渠道。“允许的发送者”填写 Entra 对象 ID（Teams 管理中心，或 Entra ID → 用户 → 对象 ID）。</translation>
        </message>
        <message>
            <source>Teams Developer Portal</source>
            <translation>Teams 开发者门户</translation>
        </message>
        <message>
            <source>In the WeCom admin console create an AI bot (智能机器人) and choose the API mode with a long connection: no public address is needed. Its Bot ID and Secret are shown there. Allowed senders are WeCom user ids (userid).</source>
            <translation>在企业微信管理后台创建一个智能机器人，选择 API 模式并使用长连接：无需公网地址。Bot ID 和 Secret 会显示在那里。“允许的发送者”填写企业微信用户 ID（userid）。</translation>
        </message>
        <message>
            <source>WeCom developer center</source>
            <translation>企业微信开发者中心</translation>
        </message>
        <message>
            <source>Enable the channel and save: a QR code appears here; scan it with WeChat on your phone and confirm (or run 'nanobot-desktop channels login weixin' in a terminal). The login is kept in the weixin folder beside config.json, shared with nanobot. Allowed senders are WeChat ids (…@im.wechat).</source>
            <translation>启用此渠道并保存：这里会显示二维码；用手机微信扫码并确认（也可以在终端运行 'nanobot-desktop channels login weixin'）。登录信息保存在 config.json 旁的 weixin 文件夹中，与 nanobot 共用。“允许的发送者”填写微信 ID（…@im.wechat）。</translation>
        </message>
        <message>
            <source>Telegram bot</source>
            <translation>Telegram 机器人</translation>
        </message>
        <message>
            <source>Discord bot</source>
            <translation>Discord 机器人</translation>
        </message>
        <message>
            <source>Slack app in Socket Mode</source>
            <translation>Socket Mode 下的 Slack 应用</translation>
        </message>
        <message>
            <source>Feishu / Lark over a WebSocket long connection</source>
            <translation>通过 WebSocket 长连接接入飞书 / Lark</translation>
        </message>
        <message>
            <source>DingTalk robot in stream mode</source>
            <translation>Stream 模式的钉钉机器人</translation>
        </message>
        <message>
            <source>Email: IMAP in, SMTP out</source>
            <translation>电子邮件：IMAP 收信，SMTP 发信</translation>
        </message>
        <message>
            <source>Matrix (Element and any other Matrix client)</source>
            <translation>Matrix（Element 及其他任何 Matrix 客户端）</translation>
        </message>
        <message>
            <source>QQ bot (QQ Open Platform)</source>
            <translation>QQ 机器人（QQ 开放平台）</translation>
        </message>
        <message>
            <source>WhatsApp, linked to your account as a device (like WhatsApp Web)</source>
            <translation>WhatsApp，作为设备关联到你的账号（类似 WhatsApp Web）</translation>
        </message>
        <message>
            <source>Mochat (Socket.IO)</source>
            <translation>Mochat（Socket.IO）</translation>
        </message>
        <message>
            <source>WebSocket server (browsers and phones connect to us)</source>
            <translation>WebSocket 服务器（供浏览器和手机连接）</translation>
        </message>
        <message>
            <source>Signal through a signal-cli daemon (its HTTP JSON-RPC interface)</source>
            <translation>通过 signal-cli 守护进程接入 Signal（其 HTTP JSON-RPC 接口）</translation>
        </message>
        <message>
            <source>QQ through NapCat's OneBot v11 WebSocket server</source>
            <translation>通过 NapCat 的 OneBot v11 WebSocket 服务器接入 QQ</translation>
        </message>
        <message>
            <source>A Mattermost bot account, over the REST API v4 and its WebSocket</source>
            <translation>Mattermost 机器人账号，通过 REST API v4 及其 WebSocket 接入</translation>
        </message>
        <message>
            <source>A Microsoft Teams bot (Azure Bot registration) receiving on a local HTTP endpoint</source>
            <translation>Microsoft Teams 机器人（Azure Bot 注册），在本地 HTTP 终结点接收消息</translation>
        </message>
        <message>
            <source>A WeCom (企业微信) AI bot on the WebSocket long connection</source>
            <translation>企业微信智能机器人，通过 WebSocket 长连接接入</translation>
        </message>
        <message>
            <source>Personal WeChat through the iLink bot API</source>
            <translation>通过 iLink 机器人 API 接入个人微信</translation>
        </message>
        <message>
            <source>Channels</source>
            <translation>渠道</translation>
        </message>
        <message>
            <source>Send progress</source>
            <translation>发送进度</translation>
        </message>
        <message>
            <source>Send tool hints</source>
            <translation>发送工具提示</translation>
        </message>
        <message>
            <source>Reach the agent from chat apps. Tokens and passwords are stored in the OS keyring.</source>
            <translation>在聊天应用中与智能体对话。令牌和密码保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>Send progress messages while the agent works</source>
            <translation>智能体工作时发送进度消息</translation>
        </message>
        <message>
            <source>Send a short note when a tool runs</source>
            <translation>运行工具时发送一条简短提示</translation>
        </message>
        <message>
            <source>{channel}: {state}</source>
            <translation>{channel}：{state}</translation>
        </message>
        <message>
            <source>{channel} is on.</source>
            <translation>{channel} 已开启。</translation>
        </message>
        <message>
            <source>connected</source>
            <translation>已连接</translation>
        </message>
        <message>
            <source>waiting for you to scan the QR code</source>
            <translation>等待你扫描二维码</translation>
        </message>
        <message>
            <source>disconnected (retrying)</source>
            <translation>已断开（正在重试）</translation>
        </message>
        <message>
            <source>cannot run</source>
            <translation>无法运行</translation>
        </message>
        <message>
            <source>on, not running</source>
            <translation>已开启，未运行</translation>
        </message>
        <message>
            <source>off</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>{channel} install command</source>
            <translation>{channel} 安装命令</translation>
        </message>
        <message>
            <source>Install {channel} support</source>
            <translation>安装 {channel} 支持组件</translation>
        </message>
        <message>
            <source>Turn on {channel}</source>
            <translation>开启 {channel}</translation>
        </message>
        <message>
            <source>Save this page with the channel enabled; it connects now</source>
            <translation>保存此页并启用该渠道，随即开始连接</translation>
        </message>
        <message>
            <source>Installing {channel} support</source>
            <translation>正在安装 {channel} 支持组件</translation>
        </message>
        <message>
            <source>{channel} installer output</source>
            <translation>{channel} 安装输出</translation>
        </message>
        <message>
            <source>This runs: {command}</source>
            <translation>将运行：{command}</translation>
        </message>
        <message>
            <source>To add it, run: {command}</source>
            <translation>要添加它，请运行：{command}</translation>
        </message>
        <message>
            <source>Dream &amp; heartbeat</source>
            <translation>梦境整理与心跳</translation>
        </message>
        <message>
            <source>Dream periodically distils the conversation history into long-term memory; every run is a commit you can inspect and revert in the Memory tab.</source>
            <translation>梦境整理（Dream）会定期把对话历史提炼为长期记忆；每次运行都是一次提交，你可以在“记忆”标签页中查看和撤销。</translation>
        </message>
        <message>
            <source>Review Dream changes before they land</source>
            <translation>在梦境整理的修改生效前先审阅</translation>
        </message>
        <message>
            <source>Dream then proposes its changes instead of making them: the Memory tab shows them, and you accept all, some or none (or edit them). Nothing is written until you decide; while a proposal waits, Dream does not run again.</source>
            <translation>这样梦境整理只提出修改而不直接写入：“记忆”标签页会显示这些修改，你可以全部接受、部分接受或全部拒绝（也可以编辑）。在你决定之前不会写入任何内容；提议等待期间，梦境整理不会再次运行。</translation>
        </message>
        <message>
            <source>The heartbeat reads HEARTBEAT.md in the workspace at a fixed interval and acts on the tasks listed there.</source>
            <translation>心跳会按固定间隔读取工作区中的 HEARTBEAT.md，并执行其中列出的任务。</translation>
        </message>
        <message>
            <source>Saved, but the review setting was not saved: {error}</source>
            <translation>已保存，但审阅设置未能保存：{error}</translation>
        </message>
        <message>
            <source>The platform</source>
            <translation>该平台</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Choose {field}</source>
            <translation>选择{field}</translation>
        </message>
        <message>
            <source>Choose an emoji</source>
            <translation>选择表情</translation>
        </message>
        <message>
            <source>No reaction</source>
            <translation>不回应</translation>
        </message>
        <message>
            <source>{field} name</source>
            <translation>{field}名称</translation>
        </message>
        <message>
            <source>Emoji name</source>
            <translation>表情名称</translation>
        </message>
        <message>
            <source>{platform} does not accept this one: choose from the list</source>
            <translation>{platform} 不接受这个表情：请从列表中选择</translation>
        </message>
        <message>
            <source>Custom ({codes})</source>
            <translation>自定义（{codes}）</translation>
        </message>
        <message>
            <source>Approve before starting</source>
            <translation>启动前审批</translation>
        </message>
        <message>
            <source>These programs will run on this computer with your user's rights, and servers are contacted as listed. Only approve what you trust.</source>
            <translation>这些程序将以你的用户权限在本机运行，并按所列地址连接服务器。请只批准你信任的内容。</translation>
        </message>
        <message>
            <source>Cancel: do not save or start these servers</source>
            <translation>取消：不保存也不启动这些服务器</translation>
        </message>
        <message>
            <source>Approve and start</source>
            <translation>批准并启动</translation>
        </message>
        <message>
            <source>Approve and start the ticked servers</source>
            <translation>批准并启动勾选的服务器</translation>
        </message>
        <message>
            <source>{server} (replaces the existing entry)</source>
            <translation>{server}（替换现有条目）</translation>
        </message>
        <message>
            <source>{server} — an HTTP server; no program is started</source>
            <translation>{server}——HTTP 服务器，不会启动程序</translation>
        </message>
        <message>
            <source>{server} — command unchanged</source>
            <translation>{server}——命令未改变</translation>
        </message>
        <message>
            <source>Approve MCP server {name}</source>
            <translation>批准 MCP 服务器 {name}</translation>
        </message>
        <message>
            <source>What MCP server {name} runs</source>
            <translation>MCP 服务器 {name} 运行的内容</translation>
        </message>
        <message>
            <source>Approve {count} servers before starting</source>
            <translation>启动前审批 {count} 个服务器</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>导入 MCP 服务器</translation>
        </message>
        <message>
            <source>Paste the "mcpServers" JSON from Claude Desktop (claude_desktop_config.json) or another app, or open such a file. You review every command next.</source>
            <translation>粘贴来自 Claude Desktop（claude_desktop_config.json）或其他应用的 "mcpServers" JSON，或打开这样的文件。下一步你会逐条审阅每个命令。</translation>
        </message>
        <message>
            <source>MCP servers JSON</source>
            <translation>MCP 服务器 JSON</translation>
        </message>
        <message>
            <source>Import status</source>
            <translation>导入状态</translation>
        </message>
        <message>
            <source>Open file…</source>
            <translation>打开文件…</translation>
        </message>
        <message>
            <source>Open a JSON file with MCP servers</source>
            <translation>打开包含 MCP 服务器的 JSON 文件</translation>
        </message>
        <message>
            <source>Cancel the import</source>
            <translation>取消导入</translation>
        </message>
        <message>
            <source>Review</source>
            <translation>审阅</translation>
        </message>
        <message>
            <source>Review the servers to import</source>
            <translation>审阅要导入的服务器</translation>
        </message>
        <message>
            <source>Open MCP servers JSON</source>
            <translation>打开 MCP 服务器 JSON</translation>
        </message>
        <message>
            <source>JSON files (*.json)</source>
            <translation>JSON 文件 (*.json)</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>所有文件 (*)</translation>
        </message>
        <message>
            <source>local command (stdio)</source>
            <translation>本地命令（stdio）</translation>
        </message>
        <message>
            <source>HTTP (SSE)</source>
            <translation>HTTP（SSE）</translation>
        </message>
        <message>
            <source>HTTP (streamable)</source>
            <translation>HTTP（流式）</translation>
        </message>
        <message>
            <source>Disabled</source>
            <translation>已停用</translation>
        </message>
        <message>
            <source>Not connected yet: connects at the agent's next turn</source>
            <translation>尚未连接：将在智能体的下一轮连接</translation>
        </message>
        <message>
            <source>Not connected yet: connects when the agent starts (or press Connect)</source>
            <translation>尚未连接：将在智能体启动时连接（或点击“连接”）</translation>
        </message>
        <message>
            <source>Connected with 1 tool</source>
            <translation>已连接，1 个工具</translation>
        </message>
        <message>
            <source>Connected with {count} tools</source>
            <translation>已连接，{count} 个工具</translation>
        </message>
        <message>
            <source>Disabled (no tools enabled)</source>
            <translation>已停用（未启用任何工具）</translation>
        </message>
        <message>
            <source>Failed: {error}</source>
            <translation>失败：{error}</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>未知错误</translation>
        </message>
        <message>
            <source>What the server runs</source>
            <translation>服务器运行的内容</translation>
        </message>
        <message>
            <source>MCP server status</source>
            <translation>MCP 服务器状态</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>编辑…</translation>
        </message>
        <message>
            <source>Edit this MCP server</source>
            <translation>编辑此 MCP 服务器</translation>
        </message>
        <message>
            <source>Disable</source>
            <translation>停用</translation>
        </message>
        <message>
            <source>Enable or disable this MCP server</source>
            <translation>启用或停用此 MCP 服务器</translation>
        </message>
        <message>
            <source>Reconnect</source>
            <translation>重新连接</translation>
        </message>
        <message>
            <source>Reconnect this MCP server</source>
            <translation>重新连接此 MCP 服务器</translation>
        </message>
        <message>
            <source>Remove this MCP server</source>
            <translation>移除此 MCP 服务器</translation>
        </message>
        <message>
            <source>Sign in…</source>
            <translation>登录…</translation>
        </message>
        <message>
            <source>Sign in to this MCP server in the browser</source>
            <translation>在浏览器中登录此 MCP 服务器</translation>
        </message>
        <message>
            <source>Sign out</source>
            <translation>退出登录</translation>
        </message>
        <message>
            <source>Forget the sign-in of this MCP server</source>
            <translation>清除此 MCP 服务器的登录信息</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Tools of this MCP server</source>
            <translation>此 MCP 服务器的工具</translation>
        </message>
        <message>
            <source>Show stderr</source>
            <translation>显示 stderr</translation>
        </message>
        <message>
            <source>Show the last lines the server wrote to stderr</source>
            <translation>显示服务器最近写入 stderr 的几行</translation>
        </message>
        <message>
            <source>Server stderr</source>
            <translation>服务器 stderr</translation>
        </message>
        <message>
            <source>Nothing written to stderr yet.</source>
            <translation>stderr 中还没有内容。</translation>
        </message>
        <message>
            <source>Hide stderr</source>
            <translation>隐藏 stderr</translation>
        </message>
        <message>
            <source>incomplete entry</source>
            <translation>条目不完整</translation>
        </message>
        <message>
            <source>MCP server {name}</source>
            <translation>MCP 服务器 {name}</translation>
        </message>
        <message>
            <source>Enable</source>
            <translation>启用</translation>
        </message>
        <message>
            <source>Tools ({count})</source>
            <translation>工具（{count}）</translation>
        </message>
        <message>
            <source>Tools (none yet)</source>
            <translation>工具（暂无）</translation>
        </message>
        <message>
            <source>Sign in again…</source>
            <translation>重新登录…</translation>
        </message>
        <message>
            <source>use letters, digits, '_', '.' or '-' (up to 64 characters), starting with a letter or digit</source>
            <extracomment>What a server name may be (the message of :func:`check_name`; marked for translation).</extracomment>
            <translation>请使用字母、数字、'_'、'.' 或 '-'（最多 64 个字符），并以字母或数字开头</translation>
        </message>
        <message>
            <source>Paste the JSON first.</source>
            <translation>请先粘贴 JSON。</translation>
        </message>
        <message>
            <source>Not valid JSON: {detail} (line {line}, column {column}).</source>
            <translation>不是有效的 JSON：{detail}（第 {line} 行，第 {column} 列）。</translation>
        </message>
        <message>
            <source>Expected a JSON object like {"mcpServers": {...}}.</source>
            <translation>应为类似 {"mcpServers": {...}} 的 JSON 对象。</translation>
        </message>
        <message>
            <source>No servers found: expected {"mcpServers": {"name": {"command": ...}}}.</source>
            <translation>未找到服务器：应为 {"mcpServers": {"name": {"command": ...}}}。</translation>
        </message>
        <message>
            <source>Server name {name}: {problem}.</source>
            <translation>服务器名称 {name}：{problem}。</translation>
        </message>
        <message>
            <source>Server {name}: expected an object with "command" or "url".</source>
            <translation>服务器 {name}：应为包含 "command" 或 "url" 的对象。</translation>
        </message>
        <message>
            <source>Server {name}: {where}: {detail}.</source>
            <translation>服务器 {name}：{where}：{detail}。</translation>
        </message>
        <message>
            <source>Server {name}: {detail}.</source>
            <translation>服务器 {name}：{detail}。</translation>
        </message>
        <message>
            <source>With environment: {variables}</source>
            <translation>环境变量：{variables}</translation>
        </message>
        <message>
            <source>Connects to: {url} (headers: {names})</source>
            <translation>连接到：{url}（请求头：{names}）</translation>
        </message>
        <message>
            <source>Connects to: {url}</source>
            <translation>连接到：{url}</translation>
        </message>
        <message>
            <source>no browser could be opened; open this address yourself: {url}</source>
            <translation>无法打开浏览器，请自行打开此地址：{url}</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP 服务器</translation>
        </message>
        <message>
            <source>Model Context Protocol servers give the agent extra tools. Changes are saved at once.</source>
            <translation>MCP（模型上下文协议）服务器为智能体提供额外的工具。更改会立即保存。</translation>
        </message>
        <message>
            <source>No MCP servers yet. Add one, or import the "mcpServers" JSON of Claude Desktop.</source>
            <translation>还没有 MCP 服务器。添加一个，或导入 Claude Desktop 的 "mcpServers" JSON。</translation>
        </message>
        <message>
            <source>Add server…</source>
            <translation>添加服务器…</translation>
        </message>
        <message>
            <source>Import JSON…</source>
            <translation>导入 JSON…</translation>
        </message>
        <message>
            <source>Import MCP servers from Claude Desktop JSON</source>
            <translation>从 Claude Desktop 的 JSON 导入 MCP 服务器</translation>
        </message>
        <message>
            <source>Undo remove</source>
            <translation>撤销移除</translation>
        </message>
        <message>
            <source>Put the removed MCP server back</source>
            <translation>恢复已移除的 MCP 服务器</translation>
        </message>
        <message>
            <source>Status is live from the running agent.</source>
            <translation>状态实时来自正在运行的智能体。</translation>
        </message>
        <message>
            <source>The agent is still starting: servers you add or connect here are tried right away; the agent takes over once it runs.</source>
            <translation>智能体仍在启动：你在这里添加或连接的服务器会立即尝试连接；智能体运行后将接管它们。</translation>
        </message>
        <message>
            <source>the file is larger than 1 MB; is it the right one?</source>
            <translation>文件大于 1 MB，确定是这个文件吗？</translation>
        </message>
        <message>
            <source>Cannot read {path}: {error}</source>
            <translation>无法读取 {path}：{error}</translation>
        </message>
        <message>
            <source>Saved {names}.</source>
            <translation>已保存 {names}。</translation>
        </message>
        <message>
            <source>No OS keyring: its secret headers stay in config.json.</source>
            <translation>没有系统密钥环：其机密请求头仍保存在 config.json 中。</translation>
        </message>
        <message>
            <source>{headers} kept in the OS keyring.</source>
            <translation>{headers} 已保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>默认模型</translation>
        </message>
        <message>
            <source>Pick a model</source>
            <translation>选择模型</translation>
        </message>
        <message>
            <source>Try it</source>
            <translation>试一试</translation>
        </message>
        <message>
            <source>Send a one-token test request to the model</source>
            <translation>向模型发送一个单令牌的测试请求</translation>
        </message>
        <message>
            <source>Model test result</source>
            <translation>模型测试结果</translation>
        </message>
        <message>
            <source>e.g. {model}</source>
            <translation>例如 {model}</translation>
        </message>
        <message>
            <source>1 model was found; pick one or type a name.</source>
            <translation>找到 1 个模型；请选择或输入名称。</translation>
        </message>
        <message>
            <source>{count} models were found; pick one or type a name.</source>
            <translation>找到 {count} 个模型；请选择一个或输入名称。</translation>
        </message>
        <message>
            <source>Type the name of the model to use.</source>
            <translation>输入要使用的模型名称。</translation>
        </message>
        <message>
            <source>{found} You can change it any time in Settings → Providers.</source>
            <translation>{found}你随时可以在“设置 → 服务商”中更改。</translation>
        </message>
        <message>
            <source>Pick or type a model to go on.</source>
            <translation>请选择或输入一个模型以继续。</translation>
        </message>
        <message>
            <source>A model name has no spaces.</source>
            <translation>模型名称中不含空格。</translation>
        </message>
        <message>
            <source>Asking the model…</source>
            <translation>正在询问模型…</translation>
        </message>
        <message>
            <source>Provider of the default model</source>
            <translation>默认模型的服务商</translation>
        </message>
        <message>
            <source>Auto (from the model name and your keys)</source>
            <translation>自动（根据模型名称和你的密钥）</translation>
        </message>
        <message>
            <source>Save the default model</source>
            <translation>保存默认模型</translation>
        </message>
        <message>
            <source>Where the default model is sent</source>
            <translation>默认模型的请求发往何处</translation>
        </message>
        <message>
            <source>Default model status</source>
            <translation>默认模型状态</translation>
        </message>
        <message>
            <source>Every chat uses this model unless it was given its own in the chat's header.</source>
            <translation>所有聊天都使用此模型，除非在聊天标题栏中为它单独指定了模型。</translation>
        </message>
        <message>
            <source>Model: enter a model name. Nothing was saved.</source>
            <translation>模型：请输入模型名称。未保存任何内容。</translation>
        </message>
        <message>
            <source>Model: a model name has no spaces. Nothing was saved.</source>
            <translation>模型：模型名称不能包含空格。未保存任何内容。</translation>
        </message>
        <message>
            <source>{reason}. Nothing was saved.</source>
            <translation>{reason}。未保存任何内容。</translation>
        </message>
        <message>
            <source>Saved: new chats use {model}.</source>
            <translation>已保存：新聊天将使用 {model}。</translation>
        </message>
        <message>
            <source>Not usable yet: {reason}</source>
            <translation>暂不可用：{reason}</translation>
        </message>
        <message>
            <source>not signed in yet — sign in on the {provider} page below</source>
            <translation>尚未登录——请在下方 {provider} 页面登录</translation>
        </message>
        <message>
            <source>no key yet — add one on the {provider} page below</source>
            <translation>尚无密钥——请在下方 {provider} 页面添加</translation>
        </message>
        <message>
            <source>key from {source}</source>
            <translation>密钥来自 {source}</translation>
        </message>
        <message>
            <source>no key needed</source>
            <translation>无需密钥</translation>
        </message>
        <message>
            <source>Sent to {provider} at {address} as {model} ({how}).</source>
            <translation>以 {model} 发送到 {provider}（{address}）（{how}）。</translation>
        </message>
        <message>
            <source>Sent to {provider} as {model} ({how}).</source>
            <translation>以 {model} 发送到 {provider}（{how}）。</translation>
        </message>
        <message>
            <source>Removed {name}.</source>
            <translation>已移除 {name}。</translation>
        </message>
        <message>
            <source>Finish the sign-in in your browser (the page has opened)…</source>
            <translation>请在浏览器中完成登录（页面已打开）…</translation>
        </message>
        <message>
            <source>Sign-in to {name} failed: {error}</source>
            <translation>登录 {name} 失败：{error}</translation>
        </message>
        <message>
            <source>Signed in to {name}.</source>
            <translation>已登录 {name}。</translation>
        </message>
        <message>
            <source>Signed out of {name}.</source>
            <translation>已退出 {name} 的登录。</translation>
        </message>
        <message>
            <source>{name} was not signed in.</source>
            <translation>{name} 未登录。</translation>
        </message>
        <message>
            <source>Pending pairing requests</source>
            <translation>待处理的配对请求</translation>
        </message>
        <message>
            <source>Someone not in a channel's allowed senders who writes to the bot directly gets a pairing code. Approve it to let them in on that channel.</source>
            <translation>不在渠道“允许的发送者”中的人直接给机器人发消息时，会收到一个配对码。批准后，他们即可在该渠道使用。</translation>
        </message>
        <message>
            <source>&lt;b&gt;Approved senders&lt;/b&gt;</source>
            <translation>&lt;b&gt;已批准的发送者&lt;/b&gt;</translation>
        </message>
        <message>
            <source>The pairing file cannot be read: {error}</source>
            <translation>无法读取配对文件：{error}</translation>
        </message>
        <message>
            <source>No pending requests. Someone not in a channel's allowed senders who writes to the bot directly gets a pairing code, to approve here.</source>
            <translation>没有待处理的请求。不在渠道“允许的发送者”中的人直接给机器人发消息时，会收到一个配对码，可在这里批准。</translation>
        </message>
        <message>
            <source>No pending requests.</source>
            <translation>没有待处理的请求。</translation>
        </message>
        <message>
            <source>{channel}: {sender} — code {code} (expires in {minutes} min)</source>
            <translation>{channel}：{sender} — 配对码 {code}（{minutes} 分钟后过期）</translation>
        </message>
        <message>
            <source>{who} wrote to the assistant on {channel} and asks to be let in (pairing code {code}).</source>
            <translation>{who} 在 {channel} 上给助手发了消息，请求获准使用（配对码 {code}）。</translation>
        </message>
        <message>
            <source>Approve</source>
            <translation>批准</translation>
        </message>
        <message>
            <source>The pairing code {code} expired or was already used.</source>
            <translation>配对码 {code} 已过期或已被使用。</translation>
        </message>
        <message>
            <source>Pairing request</source>
            <translation>配对请求</translation>
        </message>
        <message>
            <source>{request} Open nanobot to approve or deny it.</source>
            <translation>{request}请打开 nanobot 批准或拒绝。</translation>
        </message>
        <message>
            <source>Nobody has been paired yet.</source>
            <translation>尚未与任何人配对。</translation>
        </message>
        <message>
            <source>Tools allowed without asking</source>
            <translation>无需询问即可使用的工具</translation>
        </message>
        <message>
            <source>Allowed without asking</source>
            <translation>无需询问即允许</translation>
        </message>
        <message>
            <source>No tool is always allowed.</source>
            <translation>没有始终允许的工具。</translation>
        </message>
        <message>
            <source>No tool is allowed in a single chat.</source>
            <translation>没有仅在某个聊天中允许的工具。</translation>
        </message>
        <message>
            <source>Always allowed (kept after a restart)</source>
            <translation>始终允许（重启后保留）</translation>
        </message>
        <message>
            <source>Allowed in one chat (until the app quits)</source>
            <translation>在某个聊天中允许（直到应用退出）</translation>
        </message>
        <message>
            <source>everywhere</source>
            <translation>所有聊天</translation>
        </message>
        <message>
            <source>in “{chat}”</source>
            <translation>在“{chat}”中</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Revoke {tool} {where}</source>
            <translation>撤销 {tool}（{where}）</translation>
        </message>
        <message>
            <source>The pairing file cannot be changed: {error}</source>
            <translation>无法修改配对文件：{error}</translation>
        </message>
        <message>
            <source>{action} {request}</source>
            <translation>{action} {request}</translation>
        </message>
        <message>
            <source>QR code to scan</source>
            <translation>待扫描的二维码</translation>
        </message>
        <message>
            <source>{steps}, then scan this code:</source>
            <translation>{steps}，然后扫描此二维码：</translation>
        </message>
        <message>
            <source>How to link</source>
            <translation>关联方法</translation>
        </message>
        <message>
            <source>WhatsApp offers a new code every 20 seconds or so; it appears here.</source>
            <translation>WhatsApp 大约每 20 秒更换一次二维码，新码会显示在这里。</translation>
        </message>
        <message>
            <source>Login</source>
            <translation>登录</translation>
        </message>
        <message>
            <source>QR code problem</source>
            <translation>二维码问题</translation>
        </message>
        <message>
            <source>The code cannot be drawn here: {error}</source>
            <translation>无法在此显示二维码：{error}</translation>
        </message>
        <message>
            <source>Off (the default): commands see the workspace, the system (read-only) and a scratch home folder of their own, kept per workspace, so the keys, tokens and mail in your home folder stay out of their reach. The config folder stays hidden either way.</source>
            <translation>关闭（默认）：命令只能看到工作区、系统（只读）以及每个工作区各自的临时主文件夹，因此你主文件夹中的密钥、令牌和邮件不会被它们触及。无论哪种设置，配置文件夹都保持隐藏。</translation>
        </message>
        <message>
            <source>Folders outside the workspace that commands may see, each read-only or writable.</source>
            <translation>命令可以看到的工作区以外的文件夹，每个可设为只读或可写。</translation>
        </message>
        <message>
            <source>For each command and everything it starts. Reaching the process or memory limit stops the command; a larger file or more CPU time fails. Everything it started ends with it.</source>
            <translation>作用于每条命令及其启动的所有进程。达到进程数或内存上限会停止该命令；超出文件大小或 CPU 时间的操作会失败。命令结束时，它启动的一切也随之结束。</translation>
        </message>
        <message>
            <source>Read-only</source>
            <translation>只读</translation>
        </message>
        <message>
            <source>Read and write</source>
            <translation>读写</translation>
        </message>
        <message>
            <source>Processes</source>
            <translation>进程数</translation>
        </message>
        <message>
            <source>Memory (all processes together)</source>
            <translation>内存（所有进程合计）</translation>
        </message>
        <message>
            <source>Largest file</source>
            <translation>最大文件</translation>
        </message>
        <message>
            <source>Size of /tmp</source>
            <translation>/tmp 大小</translation>
        </message>
        <message>
            <source>CPU time per process</source>
            <translation>每个进程的 CPU 时间</translation>
        </message>
        <message>
            <source>What commands see and their limits</source>
            <translation>命令可见的内容及其限制</translation>
        </message>
        <message>
            <source>What commands see</source>
            <translation>命令可见的内容</translation>
        </message>
        <message>
            <source>Let commands see my home folder (read-only)</source>
            <translation>允许命令查看我的主文件夹（只读）</translation>
        </message>
        <message>
            <source>Let commands see my home folder</source>
            <translation>允许命令查看我的主文件夹</translation>
        </message>
        <message>
            <source>Folders commands may see</source>
            <translation>命令可见的文件夹</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>文件夹</translation>
        </message>
        <message>
            <source>Access</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>添加文件夹…</translation>
        </message>
        <message>
            <source>Add a folder commands may see</source>
            <translation>添加一个命令可见的文件夹</translation>
        </message>
        <message>
            <source>Remove the selected folder</source>
            <translation>移除所选文件夹</translation>
        </message>
        <message>
            <source>Limits per command</source>
            <translation>每条命令的限制</translation>
        </message>
        <message>
            <source>Access to {path}</source>
            <translation>{path} 的访问权限</translation>
        </message>
        <message>
            <source>Choose a folder commands may see</source>
            <translation>选择一个命令可见的文件夹</translation>
        </message>
        <message>
            <source>{path} is not a full path (start it with / or ~/)</source>
            <translation>{path} 不是完整路径（请以 / 或 ~/ 开头）</translation>
        </message>
        <message>
            <source>Another OpenAI-compatible server (enter its URL)</source>
            <translation>其他兼容 OpenAI 的服务器（输入其 URL）</translation>
        </message>
        <message>
            <source>Ollama (on this computer)</source>
            <translation>Ollama（在本机上）</translation>
        </message>
        <message>
            <source>LM Studio (on this computer)</source>
            <translation>LM Studio（在本机上）</translation>
        </message>
        <message>
            <source>vLLM server</source>
            <translation>vLLM 服务器</translation>
        </message>
        <message>
            <source>Choose where your assistant's model runs</source>
            <translation>选择助手的模型在哪里运行</translation>
        </message>
        <message>
            <source>Pick the service you have an account with, or a model server you run yourself. You can add more providers later in Settings.</source>
            <translation>选择你有账户的服务，或你自己运行的模型服务器。以后可以在设置中添加更多服务商。</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>服务商</translation>
        </message>
        <message>
            <source>Cloud services</source>
            <translation>云服务</translation>
        </message>
        <message>
            <source>Servers you run (no account needed)</source>
            <translation>你自己运行的服务器（无需账户）</translation>
        </message>
        <message>
            <source>API keys are stored in the OS keyring, never in config.json. Pick a provider on the left to set its key and endpoint, test it, or fetch its models. ChatGPT (Codex), xAI Grok and GitHub Copilot are signed in to with your account instead of a key.</source>
            <translation>API 密钥保存在系统密钥环中，绝不写入 config.json。在左侧选择一个服务商，设置它的密钥和端点、测试连接或获取模型列表。ChatGPT（Codex）、xAI Grok 和 GitHub Copilot 使用你的账号登录，而不是密钥。</translation>
        </message>
        <message>
            <source>Set up with the assistant…</source>
            <translation>用助手设置…</translation>
        </message>
        <message>
            <source>Open the setup assistant</source>
            <translation>打开设置助手</translation>
        </message>
        <message>
            <source>The first-run steps again: provider, key and test, model, workspace</source>
            <translation>重新进行首次运行的步骤：服务商、密钥与测试、模型、工作区</translation>
        </message>
        <message>
            <source>Signed in</source>
            <translation>已登录</translation>
        </message>
        <message>
            <source>Not signed in</source>
            <translation>未登录</translation>
        </message>
        <message>
            <source>Configured</source>
            <translation>已配置</translation>
        </message>
        <message>
            <source>Not configured</source>
            <translation>未配置</translation>
        </message>
        <message>
            <source>Account</source>
            <translation>账号</translation>
        </message>
        <message>
            <source>Sign in.</source>
            <translation>登录。</translation>
        </message>
        <message>
            <source>How to get a key</source>
            <translation>如何获取密钥</translation>
        </message>
        <message>
            <source>{provider} provider settings</source>
            <translation>{provider} 服务商设置</translation>
        </message>
        <message>
            <source>A server on your machine or network; usually no key is needed.</source>
            <translation>运行在本机或网络中的服务器，通常无需密钥。</translation>
        </message>
        <message>
            <source>A gateway that serves models of many vendors.</source>
            <translation>提供多家厂商模型的网关。</translation>
        </message>
        <message>
            <source>The key may also come from the environment variable {variable}.</source>
            <translation>密钥也可以来自环境变量 {variable}。</translation>
        </message>
        <message>
            <source>The sign-in is kept in the OS keyring. From a terminal: {command}</source>
            <translation>登录信息保存在系统密钥环中。在终端中：{command}</translation>
        </message>
        <message>
            <source>nanobot's earlier name for the OpenCode Zen section; a key stored here is used for models chosen with this provider.</source>
            <translation>nanobot 早先对 OpenCode Zen 配置节的名称；这里保存的密钥用于通过此服务商选择的模型。</translation>
        </message>
        <message>
            <source>{provider} API key</source>
            <translation>{provider} API 密钥</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API 密钥</translation>
        </message>
        <message>
            <source>{provider} API base URL</source>
            <translation>{provider} API 地址</translation>
        </message>
        <message>
            <source>provider default</source>
            <translation>服务商默认</translation>
        </message>
        <message>
            <source>The address requests go to (empty: the provider's own).</source>
            <translation>请求发往的地址（留空：服务商自己的地址）。</translation>
        </message>
        <message>
            <source>Header-Name: value (one per line)</source>
            <translation>Header-Name: value（每行一个）</translation>
        </message>
        <message>
            <source>{provider} extra headers</source>
            <translation>{provider} 额外请求头</translation>
        </message>
        <message>
            <source>HTTP headers sent with every request, one “Name: value” a line.</source>
            <translation>每个请求都会发送的 HTTP 请求头，每行一个“Name: value”。</translation>
        </message>
        <message>
            <source>{provider} advanced</source>
            <translation>{provider} 高级设置</translation>
        </message>
        <message>
            <source>API base</source>
            <translation>API 地址</translation>
        </message>
        <message>
            <source>{provider} endpoint status</source>
            <translation>{provider} 端点状态</translation>
        </message>
        <message>
            <source>Save endpoint</source>
            <translation>保存端点</translation>
        </message>
        <message>
            <source>Save the {provider} API base and headers</source>
            <translation>保存 {provider} 的 API 地址和请求头</translation>
        </message>
        <message>
            <source>Saved with “Save endpoint” above, with the API base.</source>
            <translation>与 API 地址一起通过上方的“保存端点”保存。</translation>
        </message>
        <message>
            <source>Model used to test {provider}</source>
            <translation>用于测试 {provider} 的模型</translation>
        </message>
        <message>
            <source>Test the connection to {provider}</source>
            <translation>测试与 {provider} 的连接</translation>
        </message>
        <message>
            <source>{provider} connection test result</source>
            <translation>{provider} 连接测试结果</translation>
        </message>
        <message>
            <source>Fetch models</source>
            <translation>获取模型列表</translation>
        </message>
        <message>
            <source>Fetch the list of {provider} models</source>
            <translation>获取 {provider} 的模型列表</translation>
        </message>
        <message>
            <source>Filter models</source>
            <translation>筛选模型</translation>
        </message>
        <message>
            <source>Filter {provider} models</source>
            <translation>筛选 {provider} 模型</translation>
        </message>
        <message>
            <source>{provider} models</source>
            <translation>{provider} 模型</translation>
        </message>
        <message>
            <source>Use as default model</source>
            <translation>设为默认模型</translation>
        </message>
        <message>
            <source>Use the selected {provider} model as the default</source>
            <translation>将选中的 {provider} 模型设为默认模型</translation>
        </message>
        <message>
            <source>{provider} model list status</source>
            <translation>{provider} 模型列表状态</translation>
        </message>
        <message>
            <source>This provider has no model list; type the model name.</source>
            <translation>此服务商不提供模型列表，请输入模型名称。</translation>
        </message>
        <message>
            <source>{provider} offers no model list here; type the model name.</source>
            <translation>{provider} 在这里不提供模型列表，请输入模型名称。</translation>
        </message>
        <message>
            <source>Fetching models…</source>
            <translation>正在获取模型…</translation>
        </message>
        <message>
            <source>Double-click one to use it as the default model.</source>
            <translation>双击某个模型可将其设为默认模型。</translation>
        </message>
        <message>
            <source>The address requests go to (endpoint, URL).</source>
            <translation>请求发送到的地址（端点、URL）。</translation>
        </message>
        <message>
            <source>Extra headers</source>
            <translation>额外请求头</translation>
        </message>
        <message>
            <source>HTTP headers sent with every request.</source>
            <translation>每个请求都会附带的 HTTP 请求头。</translation>
        </message>
        <message>
            <source>Test with model</source>
            <translation>测试所用模型</translation>
        </message>
        <message>
            <source>Test connection: one tiny real request.</source>
            <translation>测试连接：发送一次极小的真实请求。</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Fetch models: the provider's model list.</source>
            <translation>获取模型：服务商的模型列表。</translation>
        </message>
        <message>
            <source>Search settings (Ctrl+F)</source>
            <translation>搜索设置（Ctrl+F）</translation>
        </message>
        <message>
            <source>Search settings</source>
            <translation>搜索设置</translation>
        </message>
        <message>
            <source>Settings found</source>
            <translation>找到的设置</translation>
        </message>
        <message>
            <source>No setting matches.</source>
            <translation>没有匹配的设置。</translation>
        </message>
        <message>
            <source>Found setting</source>
            <translation>找到的设置项</translation>
        </message>
        <message>
            <source>Tools &amp; safety</source>
            <translation>工具与安全</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Config file problem</source>
            <translation>配置文件问题</translation>
        </message>
        <message>
            <source>Check again</source>
            <translation>重新检查</translation>
        </message>
        <message>
            <source>Check the config file again</source>
            <translation>重新检查配置文件</translation>
        </message>
        <message>
            <source>Settings sections</source>
            <translation>设置分类</translation>
        </message>
        <message>
            <source>The config file cannot be read: {error}. Settings are not saved until it is fixed (nanobot Desktop never overwrites it).</source>
            <translation>无法读取配置文件：{error}。修复之前设置不会保存（nanobot Desktop 从不覆盖该文件）。</translation>
        </message>
        <message>
            <source>Allow patterns only exempt a command from the built-in safety rules (the whole command must match). They are not an allowlist: commands no rule refuses run whether or not they match. (The original nanobot treated allowPatterns as an allowlist.) Deny patterns always refuse a command that contains a match; nothing overrides them. Both are regular expressions, one per line.</source>
            <translation>允许模式只是让命令免于内置安全规则的检查（必须匹配整条命令）。它们不是白名单：没有规则拒绝的命令无论是否匹配都会运行。（原版 nanobot 把 allowPatterns 当作白名单。）拒绝模式总是拒绝包含匹配内容的命令，任何设置都无法覆盖。两者都是正则表达式，每行一个。</translation>
        </message>
        <message>
            <source>DuckDuckGo (no key needed)</source>
            <translation>DuckDuckGo（无需密钥）</translation>
        </message>
        <message>
            <source>Brave Search (needs a key)</source>
            <translation>Brave Search（需要密钥）</translation>
        </message>
        <message>
            <source>Sandbox: off (tools.exec.sandbox is "none") — commands run without containment; only the safety rules apply</source>
            <translation>沙箱：已关闭（tools.exec.sandbox 为 "none"）——命令在没有隔离的情况下运行，只有安全规则生效</translation>
        </message>
        <message>
            <source>Sandbox: bubblewrap, active ({notes})</source>
            <translation>沙箱：bubblewrap，已启用（{notes}）</translation>
        </message>
        <message>
            <source>; </source>
            <comment>between notes</comment>
            <translation>；</translation>
        </message>
        <message>
            <source>Sandbox: bubblewrap, active</source>
            <translation>沙箱：bubblewrap，已启用</translation>
        </message>
        <message>
            <source>Sandbox: unavailable — {reason}. Commands are refused until it works</source>
            <translation>沙箱：不可用——{reason}。在沙箱可用之前，命令将被拒绝</translation>
        </message>
        <message>
            <source>Sandbox: unavailable — {reason}</source>
            <translation>沙箱：不可用——{reason}</translation>
        </message>
        <message>
            <source>What the agent's tools may do, and when it asks you first.</source>
            <translation>智能体的工具可以做什么，以及何时先征求你的同意。</translation>
        </message>
        <message>
            <source>Approval</source>
            <translation>审批</translation>
        </message>
        <message>
            <source>Ask me before running commands, writing outside the workspace, or using MCP tools</source>
            <translation>在运行命令、写入工作区以外的位置或使用 MCP 工具之前先询问我</translation>
        </message>
        <message>
            <source>Approval mode: ask</source>
            <translation>审批模式：询问</translation>
        </message>
        <message>
            <source>Autonomous: run tools without asking (nanobot's behaviour)</source>
            <translation>自主：不询问直接运行工具（nanobot 的默认行为）</translation>
        </message>
        <message>
            <source>Approval mode: autonomous</source>
            <translation>审批模式：自主</translation>
        </message>
        <message>
            <source>Never</source>
            <translation>永不</translation>
        </message>
        <message>
            <source> min</source>
            <translation> 分钟</translation>
        </message>
        <message>
            <source>Approval timeout in minutes (0 = never)</source>
            <translation>审批超时（分钟，0 = 永不）</translation>
        </message>
        <message>
            <source>A request nobody answers in this time counts as denied, and the agent is told so. Never: the turn waits until you answer or stop it.</source>
            <translation>在此时间内无人回应的请求视为拒绝，并告知智能体。永不：本轮会一直等到你回应或停止它。</translation>
        </message>
        <message>
            <source>Deny unanswered requests after</source>
            <translation>未回应的请求在此时间后拒绝</translation>
        </message>
        <message>
            <source>Files and commands</source>
            <translation>文件与命令</translation>
        </message>
        <message>
            <source>Sandbox: checking…</source>
            <translation>沙箱：正在检查…</translation>
        </message>
        <message>
            <source>Sandbox status</source>
            <translation>沙箱状态</translation>
        </message>
        <message>
            <source>Web search</source>
            <translation>网页搜索</translation>
        </message>
        <message>
            <source>Web search provider</source>
            <translation>网页搜索服务商</translation>
        </message>
        <message>
            <source>Brave Search API key</source>
            <translation>Brave Search API 密钥</translation>
        </message>
        <message>
            <source>Brave API key</source>
            <translation>Brave API 密钥</translation>
        </message>
        <message>
            <source>The search key is stored in the OS keyring. With a key, Brave is used.</source>
            <translation>搜索密钥保存在系统密钥环中。设置了密钥时使用 Brave。</translation>
        </message>
        <message>
            <source>Folders commands may see: {reason}. Nothing was saved.</source>
            <translation>命令可见的文件夹：{reason}。未保存任何内容。</translation>
        </message>
        <message>
            <source>Saved, but the approval settings were not saved: {error}</source>
            <translation>已保存，但审批设置未能保存：{error}</translation>
        </message>
        <message>
            <source>Name: value</source>
            <translation>名称: 值</translation>
        </message>
        <message>
            <source>NAME=value</source>
            <translation>变量名=值</translation>
        </message>
        <message>
            <source>line {number}: {name} is not a valid header name</source>
            <translation>第 {number} 行：{name} 不是有效的请求头名称</translation>
        </message>
        <message>
            <source>line {number}: {name} is not a valid variable name</source>
            <translation>第 {number} 行：{name} 不是有效的变量名</translation>
        </message>
        <message>
            <source>line {number} should look like '{example}'</source>
            <translation>第 {number} 行应形如“{example}”</translation>
        </message>
        <message>
            <source>enter a URL</source>
            <translation>请输入 URL</translation>
        </message>
        <message>
            <source>{text} is not a URL starting with {schemes}</source>
            <translation>{text} 不是以 {schemes} 开头的 URL</translation>
        </message>
        <message>
            <source> or </source>
            <translation> 或 </translation>
        </message>
        <message>
            <source>line {number}: not a valid regular expression ({error})</source>
            <translation>第 {number} 行：不是有效的正则表达式（{error}）</translation>
        </message>
        <message>
            <source>{path} is a file, not a folder.</source>
            <translation>{path} 是文件，不是文件夹。</translation>
        </message>
        <message>
            <source>This folder does not exist yet; it is created with the starter files.</source>
            <translation>此文件夹尚不存在；将创建它并放入初始文件。</translation>
        </message>
        <message>
            <source>An existing nanobot workspace ({files}, {count} saved chat(s)). Nothing in it is overwritten.</source>
            <translation>已有的 nanobot 工作区（{files}，{count} 个已保存的聊天）。其中的内容不会被覆盖。</translation>
        </message>
        <message>
            <source>An existing nanobot workspace ({files}). Nothing in it is overwritten.</source>
            <translation>已有的 nanobot 工作区（{files}）。其中的内容不会被覆盖。</translation>
        </message>
        <message>
            <source>A folder with other files; the starter files are added beside them.</source>
            <translation>包含其他文件的文件夹；初始文件会添加在它们旁边。</translation>
        </message>
        <message>
            <source>An empty folder; the starter files are created in it.</source>
            <translation>空文件夹；将在其中创建初始文件。</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>工作区文件夹</translation>
        </message>
        <message>
            <source>Browse…</source>
            <translation>浏览…</translation>
        </message>
        <message>
            <source>Choose the workspace folder</source>
            <translation>选择工作区文件夹</translation>
        </message>
        <message>
            <source>About the workspace folder</source>
            <translation>关于工作区文件夹</translation>
        </message>
        <message>
            <source>Choose or open a nanobot workspace</source>
            <translation>选择或打开 nanobot 工作区</translation>
        </message>
        <message>
            <source>Custom (OpenAI-compatible)</source>
            <translation>自定义（OpenAI 兼容）</translation>
        </message>
        <message>
            <source>OpenCode Zen (old)</source>
            <translation>OpenCode Zen（旧）</translation>
        </message>
        <message>
            <source>SiliconFlow</source>
            <translation>硅基流动</translation>
        </message>
        <message>
            <source>VolcEngine Coding Plan</source>
            <translation>火山引擎 Coding Plan</translation>
        </message>
        <message>
            <source>VolcEngine</source>
            <translation>火山引擎</translation>
        </message>
        <message>
            <source>xAI Grok (subscription)</source>
            <translation>xAI Grok（订阅）</translation>
        </message>
        <message>
            <source>Zhipu AI (GLM)</source>
            <translation>智谱 AI（GLM）</translation>
        </message>
        <message>
            <source>DashScope (Qwen)</source>
            <translation>阿里云百炼（通义千问）</translation>
        </message>
        <message>
            <source>ModelScope</source>
            <translation>魔搭 ModelScope</translation>
        </message>
        <message>
            <source>Moonshot (Kimi)</source>
            <translation>月之暗面（Kimi）</translation>
        </message>
        <message>
            <source>MiniMax (Anthropic API)</source>
            <translation>MiniMax（Anthropic API）</translation>
        </message>
        <message>
            <source>StepFun</source>
            <translation>阶跃星辰</translation>
        </message>
        <message>
            <source>Xiaomi MiMo</source>
            <translation>小米 MiMo</translation>
        </message>
        <message>
            <source>Ant Ling</source>
            <translation>蚂蚁百灵</translation>
        </message>
        <message>
            <source>Baidu Qianfan</source>
            <translation>百度千帆</translation>
        </message>
        <message>
            <source>AssemblyAI (voice)</source>
            <translation>AssemblyAI（语音）</translation>
        </message>
        <message>
            <source>Give the skill a name.</source>
            <extracomment>A skill folder name: lowercase letters and digits in hyphen-separated words.</extracomment>
            <translation>请为技能命名。</translation>
        </message>
        <message>
            <source>A skill name has at most {count} characters.</source>
            <translation>技能名称最多 {count} 个字符。</translation>
        </message>
        <message>
            <source>Use lowercase letters, digits and single hyphens between words (for example: pdf-tables).</source>
            <translation>请使用小写字母、数字，单词之间用单个连字符连接（例如：pdf-tables）。</translation>
        </message>
        <message>
            <source>{field} must be a list of names</source>
            <translation>{field} 必须是名称列表</translation>
        </message>
        <message>
            <source>metadata is not valid JSON: {error}</source>
            <translation>metadata 不是有效的 JSON：{error}</translation>
        </message>
        <message>
            <source>metadata must be a mapping</source>
            <translation>metadata 必须是映射</translation>
        </message>
        <message>
            <source>metadata.nanobot must be a mapping</source>
            <translation>metadata.nanobot 必须是映射</translation>
        </message>
        <message>
            <source>{field} must be true or false</source>
            <translation>{field} 必须是 true 或 false</translation>
        </message>
        <message>
            <source>no frontmatter (the file must start with a --- block)</source>
            <translation>缺少 frontmatter（文件必须以 --- 块开头）</translation>
        </message>
        <message>
            <source>frontmatter is not valid YAML: {error}</source>
            <translation>frontmatter 不是有效的 YAML：{error}</translation>
        </message>
        <message>
            <source>frontmatter is nested too deeply to read</source>
            <translation>frontmatter 嵌套过深，无法读取</translation>
        </message>
        <message>
            <source>frontmatter must be a mapping of fields</source>
            <translation>frontmatter 必须是字段映射</translation>
        </message>
        <message>
            <source>name {name} does not match the folder name {folder}</source>
            <translation>名称 {name} 与文件夹名 {folder} 不一致</translation>
        </message>
        <message>
            <source>description is missing</source>
            <translation>缺少 description</translation>
        </message>
        <message>
            <source>metadata.nanobot.requires must be a mapping</source>
            <translation>metadata.nanobot.requires 必须是映射</translation>
        </message>
        <message>
            <source>the frontmatter is nested too deeply to read</source>
            <translation>frontmatter 嵌套过深，无法读取</translation>
        </message>
        <message>
            <source>Nothing new to dream about.</source>
            <translation>没有可供梦境整理的新内容。</translation>
        </message>
        <message>
            <source>until {time} (job {job})</source>
            <translation>推迟到 {time}（任务 {job}）</translation>
        </message>
        <message>
            <source>{reason}; its own text reached no one: {undelivered}.</source>
            <translation>{reason}；其本身的内容没有送达任何人：{undelivered}。</translation>
        </message>
        <message>
            <source>Dream did not run: {reason}</source>
            <translation>梦境整理未运行：{reason}</translation>
        </message>
        <message>
            <source>the analysis call failed: {error}</source>
            <translation>分析调用失败：{error}</translation>
        </message>
        <message>
            <source>the analysis came back empty</source>
            <translation>分析结果为空</translation>
        </message>
        <message>
            <source>Nothing worth keeping in entries {first}..{last}; moved on.</source>
            <translation>条目 {first}..{last} 中没有值得保留的内容，已跳过。</translation>
        </message>
        <message>
            <source> Nothing was proposed.</source>
            <translation>未提出任何修改。</translation>
        </message>
        <message>
            <source> Left out: {files}.</source>
            <translation>已略过：{files}。</translation>
        </message>
        <message>
            <source>Dream found nothing to change.</source>
            <translation>梦境整理没有发现需要修改的内容。</translation>
        </message>
        <message>
            <source>Dream proposes {count} change(s) ({names}); nothing changes until you review them in the Memory tab.</source>
            <translation>梦境整理提出了 {count} 处修改（{names}）；在你于“记忆”标签页审阅之前不会做任何改动。</translation>
        </message>
        <message>
            <source>applying the analysis failed: {error}</source>
            <translation>应用分析结果失败：{error}</translation>
        </message>
        <message>
            <source>Dream changed {count} file(s) but could not commit: {error}</source>
            <translation>梦境整理修改了 {count} 个文件，但无法提交：{error}</translation>
        </message>
        <message>
            <source>Dream failed ({why}); entries {first}..{last} will be retried next time (attempt {count} of {limit}).</source>
            <translation>梦境整理失败（{why}）；条目 {first}..{last} 将在下次重试（第 {count} 次，共 {limit} 次）。</translation>
        </message>
        <message>
            <source>Dream failed ({why}) on entries {first}..{last}, attempt {count} of {limit}; skipped them (they stay in history.jsonl).</source>
            <translation>梦境整理处理条目 {first}..{last} 失败（{why}），第 {count} 次，共 {limit} 次；已跳过这些条目（它们仍保留在 history.jsonl 中）。</translation>
        </message>
        <message>
            <source> Edits made before the failure were kept: {files}.</source>
            <translation>失败前所做的修改已保留：{files}。</translation>
        </message>
        <message>
            <source>no files</source>
            <translation>无文件</translation>
        </message>
        <message>
            <source>Dream made {count} change(s) ({files}), committed as {commit}.</source>
            <translation>梦境整理做了 {count} 处修改（{files}），已提交为 {commit}。</translation>
        </message>
        <message>
            <source>Dream made {count} change(s) ({files}).</source>
            <translation>梦境整理做了 {count} 处修改（{files}）。</translation>
        </message>
        <message>
            <source>Dream did not run: its last proposal is still waiting for your review (Memory tab → Dream review). Accept or reject it first.</source>
            <translation>梦境整理未运行：它的上一份提案仍在等你审阅（记忆标签页 → 梦境整理审阅）。请先接受或拒绝它。</translation>
        </message>
        <message>
            <source> Pinned lines were kept as they were ({count} change(s) of them dropped: {changes}).</source>
            <translation>已固定的行保持原样（放弃了其中 {count} 处修改：{changes}）。</translation>
        </message>
        <message>
            <source> It stopped early: the token budget ({budget}) ran out.</source>
            <translation>提前停止：令牌预算（{budget}）已用完。</translation>
        </message>
        <message>
            <source> It stopped early: the iteration limit ({limit}) was reached.</source>
            <translation>提前停止：已达到迭代上限（{limit}）。</translation>
        </message>
        <message>
            <source> The model stopped answering; the run ended.</source>
            <translation>模型停止了回答，本次运行结束。</translation>
        </message>
        <message>
            <source>No Dream proposal is waiting for review.</source>
            <translation>没有待审阅的梦境整理提案。</translation>
        </message>
        <message>
            <source>{reason}; not written</source>
            <translation>{reason}；未写入</translation>
        </message>
        <message>
            <source>Accepted {applied} of {total} proposed change(s) ({files}), committed as {commit}.</source>
            <translation>已接受 {total} 处建议修改中的 {applied} 处（{files}），已提交为 {commit}。</translation>
        </message>
        <message>
            <source>Accepted {applied} of {total} proposed change(s) ({files}).</source>
            <translation>已接受 {total} 处建议修改中的 {applied} 处（{files}）。</translation>
        </message>
        <message>
            <source>Accepted {applied} of {total} proposed change(s), committed as {commit}.</source>
            <translation>已接受 {total} 处建议修改中的 {applied} 处，已提交为 {commit}。</translation>
        </message>
        <message>
            <source>Accepted {applied} of {total} proposed change(s).</source>
            <translation>已接受 {total} 处建议修改中的 {applied} 处。</translation>
        </message>
        <message>
            <source> {count} could not be applied because the file changed since Dream ran: {changes}.</source>
            <translation>有 {count} 处无法应用，因为梦境整理运行后文件已有改动：{changes}。</translation>
        </message>
        <message>
            <source> {count} left out because they touch a pinned line.</source>
            <translation>有 {count} 处因涉及已固定的行而被略过。</translation>
        </message>
        <message>
            <source> 1 file entry refused, not written: {names} (why: in the commit message).</source>
            <translation>1 个文件条目被拒绝，未写入：{names}（原因见提交说明）。</translation>
        </message>
        <message>
            <source> 1 file entry refused, not written: {names}.</source>
            <translation>1 个文件条目被拒绝，未写入：{names}。</translation>
        </message>
        <message>
            <source> {count} file entries refused, not written: {names} (why: in the commit message).</source>
            <translation>{count} 个文件条目被拒绝，未写入：{names}（原因见提交说明）。</translation>
        </message>
        <message>
            <source> {count} file entries refused, not written: {names}.</source>
            <translation>{count} 个文件条目被拒绝，未写入：{names}。</translation>
        </message>
        <message>
            <source> The files were saved, but the history could not record them: {error}</source>
            <translation>文件已保存，但历史记录无法记下它们：{error}</translation>
        </message>
        <message>
            <source>Rejected Dream's proposal; nothing was changed. History entries {first}..{last} count as read, so Dream will not propose them again.</source>
            <translation>已拒绝梦境整理的建议，未做任何改动。历史条目 {first}..{last} 视为已读，梦境整理不会再次就它们提出建议。</translation>
        </message>
        <message>
            <source>Undo this change with a three-way merge: what it changed goes back, every later change is kept. The undo is itself a new entry you can undo again.</source>
            <translation>用三方合并撤销此更改：它改动的内容会被还原，之后的所有更改都会保留。撤销本身也是一条新记录，可以再次撤销。</translation>
        </message>
        <message>
            <source>No change selected</source>
            <translation>未选择更改</translation>
        </message>
        <message>
            <source>Selected change</source>
            <translation>所选更改</translation>
        </message>
        <message>
            <source>Commit details</source>
            <translation>提交详情</translation>
        </message>
        <message>
            <source>Revert this change</source>
            <translation>撤销此更改</translation>
        </message>
        <message>
            <source>Revert the selected change</source>
            <translation>撤销所选更改</translation>
        </message>
        <message>
            <source>Commit message</source>
            <translation>提交说明</translation>
        </message>
        <message>
            <source>Select a change in the timeline to see what it did.</source>
            <translation>在时间线中选择一项更改，查看它做了什么。</translation>
        </message>
        <message>
            <source>1 file</source>
            <translation>1 个文件</translation>
        </message>
        <message>
            <source>{count} files</source>
            <translation>{count} 个文件</translation>
        </message>
        <message>
            <source>Loading the changes…</source>
            <translation>正在加载更改…</translation>
        </message>
        <message>
            <source>The first entry of the history cannot be undone.</source>
            <translation>历史中的第一条记录无法撤销。</translation>
        </message>
        <message>
            <source>A Dream run</source>
            <translation>一次梦境整理</translation>
        </message>
        <message>
            <source>An edit (yours, in the app or outside it)</source>
            <translation>一次编辑（你在应用内或应用外所做）</translation>
        </message>
        <message>
            <source>An undo of an earlier change</source>
            <translation>对先前更改的撤销</translation>
        </message>
        <message>
            <source>Repository bookkeeping</source>
            <translation>仓库维护记录</translation>
        </message>
        <message>
            <source>Another change</source>
            <translation>其他更改</translation>
        </message>
        <message>
            <source>today {time}</source>
            <translation>今天 {time}</translation>
        </message>
        <message>
            <source>When</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>Change</source>
            <translation>更改</translation>
        </message>
        <message>
            <source>Files</source>
            <translation>文件</translation>
        </message>
        <message>
            <source>Lines</source>
            <translation>行</translation>
        </message>
        <message>
            <source>Memory timeline</source>
            <translation>记忆时间线</translation>
        </message>
        <message>
            <source>{added} line(s) added, {removed} removed</source>
            <translation>新增 {added} 行，删除 {removed} 行</translation>
        </message>
        <message>
            <source>added</source>
            <extracomment>How a file's change is named in its header (git's status, in words).</extracomment>
            <translation>新增</translation>
        </message>
        <message>
            <source>modified</source>
            <translation>修改</translation>
        </message>
        <message>
            <source>deleted</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Dream's reading position was removed</source>
            <translation>梦境整理的读取位置已被移除</translation>
        </message>
        <message>
            <source>Dream has read the history up to #{new}</source>
            <translation>梦境整理已读取历史至 #{new}</translation>
        </message>
        <message>
            <source>Dream has read the history up to #{new} (was #{old})</source>
            <translation>梦境整理已读取历史至 #{new}（原为 #{old}）</translation>
        </message>
        <message>
            <source>Changes of the selected commit</source>
            <translation>所选提交的更改</translation>
        </message>
        <message>
            <source>This commit changed no files.</source>
            <translation>此提交没有更改任何文件。</translation>
        </message>
        <message>
            <source>Dream needs the model; it becomes available once the agent has connected.</source>
            <translation>梦境整理需要模型；智能体连接后即可使用。</translation>
        </message>
        <message>
            <source>Dream now</source>
            <translation>立即梦境整理</translation>
        </message>
        <message>
            <source>Cancel the Dream run</source>
            <translation>取消本次梦境整理</translation>
        </message>
        <message>
            <source>Dream in progress</source>
            <translation>梦境整理进行中</translation>
        </message>
        <message>
            <source>Dream status</source>
            <translation>梦境整理状态</translation>
        </message>
        <message>
            <source>Dreaming… {seconds} s (reading the new history, then editing the memory files)</source>
            <translation>梦境整理中… {seconds} 秒（先读取新的历史，再编辑记忆文件）</translation>
        </message>
        <message>
            <source>Distil the new history entries into MEMORY.md, USER.md and SOUL.md now</source>
            <translation>立即将新的历史条目提炼到 MEMORY.md、USER.md 和 SOUL.md 中</translation>
        </message>
        <message>
            <source>1 history entry waiting for Dream.</source>
            <translation>有 1 条历史条目等待梦境整理。</translation>
        </message>
        <message>
            <source>{count} history entries waiting for Dream.</source>
            <translation>有 {count} 条历史条目等待梦境整理。</translation>
        </message>
        <message>
            <source>Dream is up to date with the history.</source>
            <translation>梦境整理已跟上全部历史。</translation>
        </message>
        <message>
            <source>Not yet processed by Dream</source>
            <translation>尚未经梦境整理处理</translation>
        </message>
        <message>
            <source>Processed by Dream</source>
            <translation>已经梦境整理处理</translation>
        </message>
        <message>
            <source>Entry</source>
            <translation>条目</translation>
        </message>
        <message>
            <source>● = not yet processed by Dream</source>
            <translation>● = 尚未经梦境整理处理</translation>
        </message>
        <message>
            <source>No history yet. A chat is summarised here when it grows too long for the model's context window, when you type /new in it, or when you choose “Archive into memory now” in its ⋯ menu; Dream then distils the summaries into MEMORY.md.</source>
            <translation>尚无历史。当聊天长到超出模型的上下文窗口、你在聊天中输入 /new，或在其 ⋯ 菜单中选择“立即归档到记忆”时，聊天摘要会出现在这里；随后梦境整理会把摘要提炼到 MEMORY.md 中。</translation>
        </message>
        <message>
            <source>Search history (text, date or #number)</source>
            <translation>搜索历史（文字、日期或 #编号）</translation>
        </message>
        <message>
            <source>Search history</source>
            <translation>搜索历史</translation>
        </message>
        <message>
            <source>Only not yet dreamed</source>
            <translation>仅显示未整理的</translation>
        </message>
        <message>
            <source>Show only entries not yet processed by Dream</source>
            <translation>仅显示尚未经梦境整理处理的条目</translation>
        </message>
        <message>
            <source>History summary</source>
            <translation>历史概要</translation>
        </message>
        <message>
            <source>History entries</source>
            <translation>历史条目</translation>
        </message>
        <message>
            <source>Selected history entry</source>
            <translation>所选历史条目</translation>
        </message>
        <message>
            <source>Select an entry to read it in full.</source>
            <translation>选择一个条目以阅读全文。</translation>
        </message>
        <message>
            <source>1 entry</source>
            <translation>1 个条目</translation>
        </message>
        <message>
            <source>{count} entries</source>
            <translation>{count} 个条目</translation>
        </message>
        <message>
            <source>● {count} not yet processed by Dream</source>
            <translation>● {count} 个尚未经梦境整理处理</translation>
        </message>
        <message>
            <source>{count} unreadable line(s) skipped</source>
            <translation>已跳过 {count} 行无法读取的内容</translation>
        </message>
        <message>
            <source>{count} shown</source>
            <translation>显示 {count} 个</translation>
        </message>
        <message>
            <source>No entries match.</source>
            <translation>没有匹配的条目。</translation>
        </message>
        <message>
            <source>Message text</source>
            <translation>消息内容</translation>
        </message>
        <message>
            <source>Error message</source>
            <translation>错误消息</translation>
        </message>
        <message>
            <source>Dismiss</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>Dismiss message</source>
            <translation>关闭消息</translation>
        </message>
        <message>
            <source>Pinned lines</source>
            <translation>已固定的行</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>取消固定</translation>
        </message>
        <message>
            <source>Unpin the selected line</source>
            <translation>取消固定所选行</translation>
        </message>
        <message>
            <source>{line}   (not in the file now)</source>
            <translation>{line}   （当前不在文件中）</translation>
        </message>
        <message>
            <source>Dream never changes or removes this line.</source>
            <translation>梦境整理永远不会更改或删除此行。</translation>
        </message>
        <message>
            <source>This pinned line is not in the file; the pin applies again when it is back.</source>
            <translation>此固定行不在文件中；它回到文件后固定会再次生效。</translation>
        </message>
        <message>
            <source>Pinned lines in this file ({count}): Dream leaves them as they are</source>
            <translation>此文件中已固定的行（{count}）：梦境整理会保持原样</translation>
        </message>
        <message>
            <source>No pinned lines. Right-click a line and choose “Pin this line” so Dream never changes it.</source>
            <translation>没有已固定的行。右键点击某一行并选择“固定此行”，梦境整理就永远不会更改它。</translation>
        </message>
        <message>
            <source>Dream proposal refused</source>
            <translation>梦境整理提案已拒绝</translation>
        </message>
        <message>
            <source>an unknown time</source>
            <translation>未知时间</translation>
        </message>
        <message>
            <source>line {number}</source>
            <translation>第 {number} 行</translation>
        </message>
        <message>
            <source>Edit the proposed {file}</source>
            <translation>编辑提议的 {file}</translation>
        </message>
        <message>
            <source>This text becomes Dream's proposal for {file}. Its changes are then listed for review again; nothing is written until you accept.</source>
            <translation>此文本将成为梦境整理对 {file} 的提案。其更改随后会再次列出供审阅；在你接受之前不会写入任何内容。</translation>
        </message>
        <message>
            <source>Proposed {file}</source>
            <translation>提议的 {file}</translation>
        </message>
        <message>
            <source>Use this text</source>
            <translation>使用此文本</translation>
        </message>
        <message>
            <source>Dream proposal</source>
            <translation>梦境整理提案</translation>
        </message>
        <message>
            <source>Accept selected</source>
            <translation>接受所选</translation>
        </message>
        <message>
            <source>Write and commit only the ticked changes</source>
            <translation>只写入并提交勾选的更改</translation>
        </message>
        <message>
            <source>Accept all</source>
            <translation>全部接受</translation>
        </message>
        <message>
            <source>Reject all</source>
            <translation>全部拒绝</translation>
        </message>
        <message>
            <source>Change nothing; Dream will not propose these history entries again</source>
            <translation>不做任何更改；梦境整理不会再就这些历史条目提出建议</translation>
        </message>
        <message>
            <source>Close this message</source>
            <translation>关闭此消息</translation>
        </message>
        <message>
            <source>Proposed changes</source>
            <translation>提议的更改</translation>
        </message>
        <message>
            <source>Edit file…</source>
            <translation>编辑文件…</translation>
        </message>
        <message>
            <source>Change the proposed text of the selected file yourself</source>
            <translation>自行修改所选文件的提议文本</translation>
        </message>
        <message>
            <source>Dream's analysis</source>
            <translation>梦境整理的分析</translation>
        </message>
        <message>
            <source>Proposed changes of the selected file</source>
            <translation>所选文件的提议更改</translation>
        </message>
        <message>
            <source>{reason} Nothing in your memory was changed.</source>
            <translation>{reason} 你的记忆没有任何改动。</translation>
        </message>
        <message>
            <source>No Dream proposal is waiting</source>
            <translation>没有待审阅的梦境整理提案</translation>
        </message>
        <message>
            <source>With “Review Dream changes before they land” on (Settings → Dream &amp; heartbeat), Dream's changes wait here for you before they are written.</source>
            <translation>开启“在梦境整理的更改生效前审阅”（设置 → 梦境整理与心跳）后，梦境整理的更改会在写入前在这里等你审阅。</translation>
        </message>
        <message>
            <source>Dream proposes 1 change</source>
            <translation>梦境整理建议 1 处更改</translation>
        </message>
        <message>
            <source>Dream proposes {count} changes</source>
            <translation>梦境整理建议 {count} 处更改</translation>
        </message>
        <message>
            <source>From history entries {first}..{last}, {when}. Untick what you do not want: only the ticked changes are written and committed.</source>
            <translation>来自历史条目 {first}..{last}，{when}。取消勾选不需要的更改：只有勾选的更改会被写入并提交。</translation>
        </message>
        <message>
            <source>The run stopped early, so the proposal may be incomplete.</source>
            <translation>本次运行提前停止，提案可能不完整。</translation>
        </message>
        <message>
            <source>1 file entry refused (listed last): never written.</source>
            <translation>已拒绝 1 个文件条目（列在最后）：永不写入。</translation>
        </message>
        <message>
            <source>{count} file entries refused (listed last): never written.</source>
            <translation>已拒绝 {count} 个文件条目（列在最后）：永不写入。</translation>
        </message>
        <message>
            <source>(edited by you)</source>
            <translation>（由你编辑）</translation>
        </message>
        <message>
            <source>Refused: {entry}</source>
            <translation>已拒绝：{entry}</translation>
        </message>
        <message>
            <source>This file is never written.</source>
            <translation>此文件永不写入。</translation>
        </message>
        <message>
            <source>1 file entry of this proposal names a file Dream may not change (or that a link now stands in the way of). It is refused and never written; it is listed last, in red.</source>
            <translation>此提案中有 1 个文件条目指向梦境整理不得更改的文件（或现在被链接挡住的文件）。它已被拒绝且永不写入；它以红色列在最后。</translation>
        </message>
        <message>
            <source>{count} file entries of this proposal name files Dream may not change (or that a link now stands in the way of). They are refused and never written; they are listed last, in red.</source>
            <translation>此提案中有 {count} 个文件条目指向梦境整理不得更改的文件（或现在被链接挡住的文件）。它们已被拒绝且永不写入；它们以红色列在最后。</translation>
        </message>
        <message>
            <source>Dream also tried to change pinned lines; those changes were left out: {changes}.</source>
            <translation>梦境整理还试图更改已固定的行；这些更改已被排除：{changes}。</translation>
        </message>
        <message>
            <source>No change is ticked. Tick the changes to keep, or choose Reject all.</source>
            <translation>没有勾选任何更改。请勾选要保留的更改，或选择“全部拒绝”。</translation>
        </message>
        <message>
            <source>The proposal was not decided: {error}</source>
            <translation>未能处理该提案：{error}</translation>
        </message>
        <message>
            <source>The edit was not kept: {error}</source>
            <translation>未能保留该编辑：{error}</translation>
        </message>
        <message>
            <source>Your text is now the proposal for {file}; review its changes below.</source>
            <translation>你的文本现在是 {file} 的提案；请在下方审阅其更改。</translation>
        </message>
        <message>
            <source>This entry of the proposal names a file Dream may not change, or one that a link now stands in the way of. It is not offered, and accepting the proposal never writes it.</source>
            <translation>提案中的此条目指向梦境整理不得更改的文件，或现在被链接挡住的文件。它不会提供给你选择，接受提案也永远不会写入它。</translation>
        </message>
        <message>
            <source>Change {number}: line {line}</source>
            <translation>更改 {number}：第 {line} 行</translation>
        </message>
        <message>
            <source>— left out (unticked)</source>
            <translation>— 已排除（未勾选）</translation>
        </message>
        <message>
            <source>The memory history could not be read: {error}</source>
            <translation>无法读取记忆历史：{error}</translation>
        </message>
        <message>
            <source>Could not undo the change: {error}</source>
            <translation>无法撤销该更改：{error}</translation>
        </message>
        <message>
            <source>Undid {commit} “{subject}” with the new entry {new}; changes made after it were kept.</source>
            <translation>已用新记录 {new} 撤销 {commit}“{subject}”；其后的更改均已保留。</translation>
        </message>
        <message>
            <source>Undo the revert</source>
            <translation>撤销这次撤销</translation>
        </message>
        <message>
            <source>The changes could not be read: {error}</source>
            <translation>无法读取更改：{error}</translation>
        </message>
        <message>
            <source>Dream was cancelled. The edits it had already made were kept as {commit}; revert that entry to drop them.</source>
            <translation>梦境整理已取消。它已做的编辑保留为 {commit}；撤销该记录即可丢弃它们。</translation>
        </message>
        <message>
            <source>Dream was cancelled before it changed anything.</source>
            <translation>梦境整理在做出任何更改前已取消。</translation>
        </message>
        <message>
            <source>The history entries will be read again next time.</source>
            <translation>下次会重新读取这些历史条目。</translation>
        </message>
        <message>
            <source>Dream finished: {status}.</source>
            <translation>梦境整理已完成：{status}。</translation>
        </message>
        <message>
            <source>Dream could not run: {error}</source>
            <translation>梦境整理无法运行：{error}</translation>
        </message>
        <message>
            <source>OS keyring</source>
            <translation>系统密钥环</translation>
        </message>
        <message>
            <source>held for this session only</source>
            <translation>仅在本次运行期间保存</translation>
        </message>
        <message>
            <source>OS keyring ({entry})</source>
            <translation>系统密钥环（{entry}）</translation>
        </message>
        <message>
            <source>config.json reference {reference}</source>
            <translation>config.json 中的引用 {reference}</translation>
        </message>
        <message>
            <source>environment override {variable}</source>
            <translation>环境变量覆盖 {variable}</translation>
        </message>
        <message>
            <source>config.json (plaintext) — save it to move it to the keyring</source>
            <translation>config.json（明文）— 保存即可移入密钥环</translation>
        </message>
        <message>
            <source>not set</source>
            <translation>未设置</translation>
        </message>
        <message>
            <source>The key is in the keyring, but the old plaintext copy could not be removed from config.json. {error}</source>
            <translation>密钥已存入密钥环，但无法从 config.json 中删除旧的明文副本。{error}</translation>
        </message>
        <message>
            <source>The value is in the keyring, but config.json was not updated. {error}</source>
            <translation>该值已存入密钥环，但 config.json 未能更新。{error}</translation>
        </message>
        <message>
            <source>key</source>
            <translation>密钥</translation>
        </message>
        <message>
            <source>password</source>
            <translation>密码</translation>
        </message>
        <message>
            <source>token</source>
            <translation>令牌</translation>
        </message>
        <message>
            <source>secret</source>
            <translation>密钥</translation>
        </message>
        <message>
            <source>Checking the keyring…</source>
            <translation>正在检查密钥环…</translation>
        </message>
        <message>
            <source>{what}: where the current key comes from</source>
            <translation>{what}：当前密钥的来源</translation>
        </message>
        <message>
            <source>Paste a new {noun}</source>
            <translation>粘贴新的{noun}</translation>
        </message>
        <message>
            <source>Show or hide the typed {what}</source>
            <translation>显示或隐藏输入的{what}</translation>
        </message>
        <message>
            <source>Save {noun}</source>
            <translation>保存{noun}</translation>
        </message>
        <message>
            <source>Save {what} in the keyring</source>
            <translation>将{what}保存到密钥环</translation>
        </message>
        <message>
            <source>Delete the stored {what}</source>
            <translation>删除已保存的{what}</translation>
        </message>
        <message>
            <source>{what} status</source>
            <translation>{what}状态</translation>
        </message>
        <message>
            <source>Use for this session only</source>
            <translation>仅本次运行使用</translation>
        </message>
        <message>
            <source>Keep the {what} in memory for this session only</source>
            <translation>仅在本次运行期间将{what}保存在内存中</translation>
        </message>
        <message>
            <source>Cannot read the keyring: {error}</source>
            <translation>无法读取密钥环：{error}</translation>
        </message>
        <message>
            <source>Current {noun}: {source}</source>
            <translation>当前{noun}：{source}</translation>
        </message>
        <message>
            <source>No {noun} set.</source>
            <translation>未设置{noun}。</translation>
        </message>
        <message>
            <source>No {noun} set (not needed for this server).</source>
            <translation>未设置{noun}（此服务器不需要）。</translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>隐藏</translation>
        </message>
        <message>
            <source>Paste a {noun} first.</source>
            <translation>请先粘贴{noun}。</translation>
        </message>
        <message>
            <source>A {noun} has no spaces or line breaks; check what was pasted. Nothing was saved.</source>
            <translation>{noun}中不能有空格或换行，请检查粘贴的内容。未保存任何内容。</translation>
        </message>
        <message>
            <source>{error} Nothing was saved.</source>
            <translation>{error} 未保存任何内容。</translation>
        </message>
        <message>
            <source>Saved in the OS keyring.</source>
            <translation>已保存到系统密钥环。</translation>
        </message>
        <message>
            <source>Held in memory for this session only; it is gone when the app quits.</source>
            <translation>仅在本次运行期间保存在内存中，应用退出后即消失。</translation>
        </message>
        <message>
            <source>Stored {noun} removed.</source>
            <translation>已删除保存的{noun}。</translation>
        </message>
        <message>
            <source>No stored {noun} to remove.</source>
            <translation>没有可删除的已保存{noun}。</translation>
        </message>
        <message>
            <source>The API base is your resource's endpoint (https://NAME.openai.azure.com) and the model is your deployment's name.</source>
            <translation>API 地址是你的资源的终结点（https://NAME.openai.azure.com），模型是你的部署名称。</translation>
        </message>
        <message>
            <source>An Amazon Bedrock API key is optional: without one, the AWS credentials of the environment or of the profile below sign the requests.</source>
            <translation>Amazon Bedrock API 密钥是可选的：没有密钥时，由环境中或下方配置文件中的 AWS 凭证为请求签名。</translation>
        </message>
        <message>
            <source>Kimi's Coding Plan (keys starting sk-kimi-).</source>
            <translation>Kimi 的 Coding Plan（密钥以 sk-kimi- 开头）。</translation>
        </message>
        <message>
            <source>AssemblyAI only turns voice messages into text; it answers no chat. Choose it with "transcription": {"provider": "assemblyai"} in config.json.</source>
            <translation>AssemblyAI 只把语音消息转成文字，不回答聊天。在 config.json 中用 "transcription": {"provider": "assemblyai"} 选用它。</translation>
        </message>
        <message>
            <source>API version</source>
            <translation>API 版本</translation>
        </message>
        <message>
            <source>Default: {version}.</source>
            <translation>默认：{version}。</translation>
        </message>
        <message>
            <source>Sign in at {site}, open {where}, create a key and paste it here. It is kept in the OS keyring; the provider usually shows it only once.</source>
            <translation>登录 {site}，打开“{where}”，创建一个密钥并粘贴到这里。密钥保存在系统密钥环中；服务商通常只显示一次。</translation>
        </message>
        <message>
            <source>Open OpenAI's API keys page</source>
            <translation>打开 OpenAI 的 API 密钥页面</translation>
        </message>
        <message>
            <source>Calls are billed to the organisation's credit, not to a ChatGPT plan.</source>
            <translation>调用费用从组织的余额中扣除，而不是 ChatGPT 套餐。</translation>
        </message>
        <message>
            <source>Open Anthropic's API keys page</source>
            <translation>打开 Anthropic 的 API 密钥页面</translation>
        </message>
        <message>
            <source>Add credit under Billing first.</source>
            <translation>请先在 Billing 下充值。</translation>
        </message>
        <message>
            <source>Open OpenRouter's keys page</source>
            <translation>打开 OpenRouter 的密钥页面</translation>
        </message>
        <message>
            <source>Open DeepSeek's API keys page</source>
            <translation>打开 DeepSeek 的 API 密钥页面</translation>
        </message>
        <message>
            <source>Open Google AI Studio's keys page</source>
            <translation>打开 Google AI Studio 的密钥页面</translation>
        </message>
        <message>
            <source>A free tier is available.</source>
            <translation>提供免费额度。</translation>
        </message>
        <message>
            <source>Open Groq's API keys page</source>
            <translation>打开 Groq 的 API 密钥页面</translation>
        </message>
        <message>
            <source>Open Mistral's API keys page</source>
            <translation>打开 Mistral 的 API 密钥页面</translation>
        </message>
        <message>
            <source>Open Moonshot's API keys page</source>
            <translation>打开月之暗面的 API 密钥页面</translation>
        </message>
        <message>
            <source>Open Model Studio's API key page</source>
            <translation>打开百炼的 API 密钥页面</translation>
        </message>
        <message>
            <source>Open Zhipu's API keys page</source>
            <translation>打开智谱的 API 密钥页面</translation>
        </message>
        <message>
            <source>Open Hugging Face's access tokens page</source>
            <translation>打开 Hugging Face 的访问令牌页面</translation>
        </message>
        <message>
            <source>The token needs the “Make calls to Inference Providers” permission.</source>
            <translation>该令牌需要“Make calls to Inference Providers”权限。</translation>
        </message>
        <message>
            <source>Open NVIDIA's API catalog</source>
            <translation>打开 NVIDIA 的 API 目录</translation>
        </message>
        <message>
            <source>Open SiliconFlow's API keys page</source>
            <translation>打开硅基流动的 API 密钥页面</translation>
        </message>
        <message>
            <source>Open MiniMax's API keys page</source>
            <translation>打开 MiniMax 的 API 密钥页面</translation>
        </message>
        <message>
            <source>Sign in with your {provider} account below: a browser window opens and the sign-in is kept in the OS keyring. No API key is needed.</source>
            <translation>在下方用你的 {provider} 账号登录：将打开浏览器窗口，登录信息保存在系统密钥环中。无需 API 密钥。</translation>
        </message>
        <message>
            <source>Start {provider} on this machine (or one on your network) and put its address in API base if it is not the default shown there. Usually no key is needed; paste one if the server asks for it.</source>
            <translation>在本机（或网络中的某台机器）上启动 {provider}，如果地址不是“API 地址”中显示的默认值，请填入它的地址。通常无需密钥；如果服务器要求，请粘贴一个。</translation>
        </message>
        <message>
            <source>Any server that speaks the OpenAI API: put its address in API base and, if it asks for one, its key here.</source>
            <translation>任何支持 OpenAI API 的服务器：在“API 地址”中填入它的地址，如需密钥，请在这里填写。</translation>
        </message>
        <message>
            <source>Sign in on {provider}'s website, open its API keys page (often under your account or the console's settings), create a key and paste it here. It is kept in the OS keyring.</source>
            <translation>登录 {provider} 的网站，打开其 API 密钥页面（通常在账号或控制台设置下），创建一个密钥并粘贴到这里。密钥保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>Enabled</source>
            <translation>启用</translation>
        </message>
        <message>
            <source>Run this channel.</source>
            <translation>运行此渠道。</translation>
        </message>
        <message>
            <source>Allowed senders</source>
            <translation>允许的发送者</translation>
        </message>
        <message>
            <source>Who may talk to the agent: ids (or "id|username"; a username alone never matches: it can change hands); "*" for everyone. Empty: nobody.</source>
            <translation>谁可以与智能体对话：ID（或 "id|username"；单独的用户名永远不会匹配，因为它可能易主）；"*" 表示所有人。留空：任何人都不行。</translation>
        </message>
        <message>
            <source>Client ID</source>
            <translation>Client ID</translation>
        </message>
        <message>
            <source>The Client ID (AppKey) of your DingTalk app, from the developer console (open-dev.dingtalk.com → your app → Credentials). It is also the robot code.</source>
            <translation>你的钉钉应用的 Client ID（AppKey），见开发者后台（open-dev.dingtalk.com → 你的应用 → 凭证与基础信息）。它也是机器人编码。</translation>
        </message>
        <message>
            <source>Client secret</source>
            <translation>Client Secret</translation>
        </message>
        <message>
            <source>The Client Secret (AppSecret) of the same app. Kept in the keyring.</source>
            <translation>同一应用的 Client Secret（AppSecret）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>One conversation per person in groups</source>
            <translation>群聊中每人一个会话</translation>
        </message>
        <message>
            <source>In a group, keep a separate conversation with the agent for every member (otherwise the whole group shares one).</source>
            <translation>在群聊中，每个成员与智能体各有一个独立会话（否则全群共用一个）。</translation>
        </message>
        <message>
            <source>Groups only</source>
            <translation>仅群聊</translation>
        </message>
        <message>
            <source>Ignore one-to-one messages to the robot; answer only in groups.</source>
            <translation>忽略发给机器人的单聊消息，只在群聊中回答。</translation>
        </message>
        <message>
            <source>Follow redirects of remote media</source>
            <translation>跟随远程媒体的重定向</translation>
        </message>
        <message>
            <source>nanobot's setting for sending media from web addresses; not used here.</source>
            <translation>nanobot 用于从网址发送媒体的设置；此处不使用。</translation>
        </message>
        <message>
            <source>Redirect hosts for remote media</source>
            <translation>远程媒体的重定向主机</translation>
        </message>
        <message>
            <source>OpenAPI server</source>
            <translation>OpenAPI 服务器</translation>
        </message>
        <message>
            <source>Where DingTalk's OpenAPI is (the stream gateway, access tokens, robot messages). Change it only for a proxy or a test server.</source>
            <translation>钉钉 OpenAPI 的地址（Stream 网关、访问令牌、机器人消息）。仅在使用代理或测试服务器时修改。</translation>
        </message>
        <message>
            <source>Media upload server</source>
            <translation>媒体上传服务器</translation>
        </message>
        <message>
            <source>Where DingTalk's older API is (file uploads for images and files the agent sends). Change it only for a proxy or a test server.</source>
            <translation>钉钉旧版 API 的地址（上传智能体发送的图片和文件）。仅在使用代理或测试服务器时修改。</translation>
        </message>
        <message>
            <source>Bot token</source>
            <translation>机器人令牌</translation>
        </message>
        <message>
            <source>The bot's token (Developer Portal → your application → Bot → Reset Token). Kept in the keyring.</source>
            <translation>机器人的令牌（Developer Portal → 你的应用 → Bot → Reset Token）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Server channel policy</source>
            <translation>服务器频道策略</translation>
        </message>
        <message>
            <source>In server channels, answer every message ("open") or only messages that mention the bot or reply to it ("mention"). Direct messages are always answered.</source>
            <translation>在服务器频道中，回答每条消息（"open"），或只回答提及机器人或回复机器人的消息（"mention"）。私信总是会回答。</translation>
        </message>
        <message>
            <source>Allowed channels</source>
            <translation>允许的频道</translation>
        </message>
        <message>
            <source>Channel ids the bot listens in (empty: every channel it can read).</source>
            <translation>机器人监听的频道 ID（留空：它能读取的所有频道）。</translation>
        </message>
        <message>
            <source>Gateway intents</source>
            <translation>Gateway Intents</translation>
        </message>
        <message>
            <source>The gateway intents bit field. The default (37377) is servers, server messages, direct messages and message content.</source>
            <translation>Gateway Intents 位字段。默认值（37377）包括服务器、服务器消息、私信和消息内容。</translation>
        </message>
        <message>
            <source>Reaction</source>
            <translation>表情回应</translation>
        </message>
        <message>
            <source>Emoji the bot reacts with while it works on a message (empty: none).</source>
            <translation>机器人处理消息时添加的表情回应（留空：不添加）。</translation>
        </message>
        <message>
            <source>Working emoji</source>
            <translation>处理中表情</translation>
        </message>
        <message>
            <source>nanobot's second reaction for long tasks; not used by the desktop app.</source>
            <translation>nanobot 用于长任务的第二个表情回应；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Working emoji delay</source>
            <translation>处理中表情延迟</translation>
        </message>
        <message>
            <source>nanobot's seconds before the working emoji; not used by the desktop app.</source>
            <translation>nanobot 显示处理中表情前等待的秒数；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Streaming</source>
            <translation>流式输出</translation>
        </message>
        <message>
            <source>nanobot's streamed answers (message edits); not used by the desktop app.</source>
            <translation>nanobot 的流式回答（通过编辑消息）；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Proxy</source>
            <translation>代理</translation>
        </message>
        <message>
            <source>HTTP proxy for Discord, e.g. "http://127.0.0.1:8080".</source>
            <translation>用于 Discord 的 HTTP 代理，例如 "http://127.0.0.1:8080"。</translation>
        </message>
        <message>
            <source>Proxy user name</source>
            <translation>代理用户名</translation>
        </message>
        <message>
            <source>For a proxy that needs a login.</source>
            <translation>用于需要登录的代理。</translation>
        </message>
        <message>
            <source>Proxy password</source>
            <translation>代理密码</translation>
        </message>
        <message>
            <source>Gateway</source>
            <translation>Gateway</translation>
        </message>
        <message>
            <source>The gateway WebSocket address. Left at Discord's, the address the API names (GET /gateway/bot) is used.</source>
            <translation>Gateway 的 WebSocket 地址。保持为 Discord 的地址时，使用 API（GET /gateway/bot）给出的地址。</translation>
        </message>
        <message>
            <source>API address</source>
            <translation>API 地址</translation>
        </message>
        <message>
            <source>Where Discord's REST API is. Change it only for a Discord-compatible proxy.</source>
            <translation>Discord REST API 的地址。仅在使用兼容 Discord 的代理时修改。</translation>
        </message>
        <message>
            <source>Consent granted</source>
            <translation>已获同意</translation>
        </message>
        <message>
            <source>The mailbox owner agreed that the agent reads this mailbox and answers from it. Nothing is read or sent until this is on.</source>
            <translation>邮箱所有者已同意智能体读取此邮箱并以它回信。开启之前不会读取或发送任何邮件。</translation>
        </message>
        <message>
            <source>IMAP host</source>
            <translation>IMAP 主机</translation>
        </message>
        <message>
            <source>Incoming mail server.</source>
            <translation>收件服务器。</translation>
        </message>
        <message>
            <source>IMAP port</source>
            <translation>IMAP 端口</translation>
        </message>
        <message>
            <source>993 for SSL, 143 without.</source>
            <translation>SSL 用 993，不用 SSL 用 143。</translation>
        </message>
        <message>
            <source>IMAP username</source>
            <translation>IMAP 用户名</translation>
        </message>
        <message>
            <source>Mailbox login.</source>
            <translation>邮箱登录名。</translation>
        </message>
        <message>
            <source>IMAP password</source>
            <translation>IMAP 密码</translation>
        </message>
        <message>
            <source>Mailbox password or app password (keyring).</source>
            <translation>邮箱密码或应用专用密码（密钥环）。</translation>
        </message>
        <message>
            <source>IMAP mailbox</source>
            <translation>IMAP 邮件夹</translation>
        </message>
        <message>
            <source>Folder to watch.</source>
            <translation>要监视的文件夹。</translation>
        </message>
        <message>
            <source>IMAP over SSL</source>
            <translation>IMAP 使用 SSL</translation>
        </message>
        <message>
            <source>Connect with TLS.</source>
            <translation>使用 TLS 连接。</translation>
        </message>
        <message>
            <source>SMTP host</source>
            <translation>SMTP 主机</translation>
        </message>
        <message>
            <source>Outgoing mail server.</source>
            <translation>发件服务器。</translation>
        </message>
        <message>
            <source>SMTP port</source>
            <translation>SMTP 端口</translation>
        </message>
        <message>
            <source>587 with STARTTLS, 465 with SSL, 25 plain.</source>
            <translation>STARTTLS 用 587，SSL 用 465，明文用 25。</translation>
        </message>
        <message>
            <source>SMTP username</source>
            <translation>SMTP 用户名</translation>
        </message>
        <message>
            <source>Login for sending.</source>
            <translation>发信用的登录名。</translation>
        </message>
        <message>
            <source>SMTP password</source>
            <translation>SMTP 密码</translation>
        </message>
        <message>
            <source>Password or app password (keyring).</source>
            <translation>密码或应用专用密码（密钥环）。</translation>
        </message>
        <message>
            <source>SMTP STARTTLS</source>
            <translation>SMTP STARTTLS</translation>
        </message>
        <message>
            <source>Upgrade with STARTTLS.</source>
            <translation>用 STARTTLS 升级连接。</translation>
        </message>
        <message>
            <source>SMTP over SSL</source>
            <translation>SMTP 使用 SSL</translation>
        </message>
        <message>
            <source>Connect with TLS from the start (port 465).</source>
            <translation>从一开始就用 TLS 连接（端口 465）。</translation>
        </message>
        <message>
            <source>From address</source>
            <translation>发件地址</translation>
        </message>
        <message>
            <source>Sender of the answers (default: the SMTP, then the IMAP username).</source>
            <translation>回信的发件人（默认：SMTP 用户名，其次是 IMAP 用户名）。</translation>
        </message>
        <message>
            <source>Answer mail</source>
            <translation>回复邮件</translation>
        </message>
        <message>
            <source>Send the agent's answers to people who wrote. Off: only reminders and messages the agent sends on its own go out.</source>
            <translation>把智能体的回答发给来信的人。关闭：只发出提醒和智能体主动发送的消息。</translation>
        </message>
        <message>
            <source>Poll interval (s)</source>
            <translation>轮询间隔（秒）</translation>
        </message>
        <message>
            <source>How often the mailbox is checked.</source>
            <translation>检查邮箱的频率。</translation>
        </message>
        <message>
            <source>Mark as read</source>
            <translation>标记为已读</translation>
        </message>
        <message>
            <source>Mark a mail as read once the agent has it.</source>
            <translation>智能体收到邮件后将其标记为已读。</translation>
        </message>
        <message>
            <source>After handling</source>
            <translation>处理之后</translation>
        </message>
        <message>
            <source>What to do with a handled mail: nothing (empty), "delete" or "move".</source>
            <translation>如何处理已处理的邮件：不处理（留空）、"delete" 或 "move"。</translation>
        </message>
        <message>
            <source>Move to folder</source>
            <translation>移动到文件夹</translation>
        </message>
        <message>
            <source>The folder for "move".</source>
            <translation>"move" 的目标文件夹。</translation>
        </message>
        <message>
            <source>Expunge</source>
            <translation>彻底删除</translation>
        </message>
        <message>
            <source>Expunge the whole folder when the server cannot expunge single mails.</source>
            <translation>服务器无法彻底删除单封邮件时，彻底删除整个文件夹中已标记的邮件。</translation>
        </message>
        <message>
            <source>Leave skipped mail alone</source>
            <translation>不动被跳过的邮件</translation>
        </message>
        <message>
            <source>Apply the action only to mail the agent handled (not to ignored mail).</source>
            <translation>只对智能体处理过的邮件执行操作（不包括被忽略的邮件）。</translation>
        </message>
        <message>
            <source>Longest body</source>
            <translation>最长正文</translation>
        </message>
        <message>
            <source>Characters of a mail body given to the agent.</source>
            <translation>交给智能体的邮件正文字符数。</translation>
        </message>
        <message>
            <source>Subject prefix</source>
            <translation>主题前缀</translation>
        </message>
        <message>
            <source>For answers.</source>
            <translation>用于回信。</translation>
        </message>
        <message>
            <source>Require DKIM</source>
            <translation>要求 DKIM</translation>
        </message>
        <message>
            <source>Only accept mail whose trusted Authentication-Results say dkim=pass.</source>
            <translation>只接受可信 Authentication-Results 为 dkim=pass 的邮件。</translation>
        </message>
        <message>
            <source>Require SPF</source>
            <translation>要求 SPF</translation>
        </message>
        <message>
            <source>Only accept mail whose trusted Authentication-Results say spf=pass.</source>
            <translation>只接受可信 Authentication-Results 为 spf=pass 的邮件。</translation>
        </message>
        <message>
            <source>Trusted authentication servers</source>
            <translation>可信的认证服务器</translation>
        </message>
        <message>
            <source>authserv-id of your provider's Authentication-Results header (e.g. mx.google.com); needed when DKIM or SPF is required.</source>
            <translation>你的邮件服务商 Authentication-Results 头中的 authserv-id（例如 mx.google.com）；要求 DKIM 或 SPF 时需要。</translation>
        </message>
        <message>
            <source>Attachment types kept</source>
            <translation>保留的附件类型</translation>
        </message>
        <message>
            <source>MIME types saved for the agent (e.g. "image/*", "application/pdf"; "*" for all). Empty: none are saved.</source>
            <translation>为智能体保存的 MIME 类型（例如 "image/*"、"application/pdf"；"*" 表示全部）。留空：不保存。</translation>
        </message>
        <message>
            <source>Largest attachment (bytes)</source>
            <translation>最大附件（字节）</translation>
        </message>
        <message>
            <source>Larger ones are not saved.</source>
            <translation>更大的附件不会保存。</translation>
        </message>
        <message>
            <source>Attachments per mail</source>
            <translation>每封邮件的附件数</translation>
        </message>
        <message>
            <source>At most this many are saved or sent.</source>
            <translation>最多保存或发送这么多个。</translation>
        </message>
        <message>
            <source>App ID</source>
            <translation>App ID</translation>
        </message>
        <message>
            <source>The App ID of your self-built app (Developer Console → Credentials &amp; Basic Info), cli_…</source>
            <translation>你的自建应用的 App ID（开发者后台 → 凭证与基础信息），cli_…</translation>
        </message>
        <message>
            <source>App secret</source>
            <translation>App Secret</translation>
        </message>
        <message>
            <source>The app's App Secret (same page as the App ID).</source>
            <translation>应用的 App Secret（与 App ID 在同一页面）。</translation>
        </message>
        <message>
            <source>Encrypt key</source>
            <translation>Encrypt Key</translation>
        </message>
        <message>
            <source>Only for webhook delivery; the long connection does not need it.</source>
            <translation>仅用于 Webhook 推送；长连接不需要。</translation>
        </message>
        <message>
            <source>Verification token</source>
            <translation>Verification Token</translation>
        </message>
        <message>
            <source>Platform</source>
            <translation>平台</translation>
        </message>
        <message>
            <source>"feishu" (open.feishu.cn, China) or "lark" (open.larksuite.com).</source>
            <translation>"feishu"（open.feishu.cn，中国）或 "lark"（open.larksuite.com）。</translation>
        </message>
        <message>
            <source>Group chats</source>
            <translation>群聊</translation>
        </message>
        <message>
            <source>"mention": answer only when the bot is @mentioned; "open": every message.</source>
            <translation>"mention"：只在机器人被 @ 时回答；"open"：回答每条消息。</translation>
        </message>
        <message>
            <source>Working reaction</source>
            <translation>处理中表情</translation>
        </message>
        <message>
            <source>Emoji type put on a message while the agent works on it (THUMBSUP, OK, EYES, OnIt…); empty: none.</source>
            <translation>智能体处理消息时添加的表情类型（THUMBSUP、OK、EYES、OnIt…）；留空：不添加。</translation>
        </message>
        <message>
            <source>Done reaction</source>
            <translation>完成表情</translation>
        </message>
        <message>
            <source>Emoji type put on the message once answered (DONE, OK…); empty: none.</source>
            <translation>回答后添加到消息上的表情类型（DONE、OK…）；留空：不添加。</translation>
        </message>
        <message>
            <source>Tool hint prefix</source>
            <translation>工具提示前缀</translation>
        </message>
        <message>
            <source>Put before tool hints (when Settings → Channels sends tool hints).</source>
            <translation>加在工具提示之前（当“设置 → 渠道”发送工具提示时）。</translation>
        </message>
        <message>
            <source>Quote the message</source>
            <translation>引用消息</translation>
        </message>
        <message>
            <source>Answer as a reply to the person's message instead of a new message.</source>
            <translation>以回复对方消息的形式回答，而不是发新消息。</translation>
        </message>
        <message>
            <source>nanobot's streaming cards; the desktop app sends each answer whole.</source>
            <translation>nanobot 的流式卡片；桌面应用会整条发送每个回答。</translation>
        </message>
        <message>
            <source>Topic isolation</source>
            <translation>话题隔离</translation>
        </message>
        <message>
            <source>In groups, each message and the replies in its thread are a conversation of their own (answers to a topic stay in the topic); off: one conversation per group.</source>
            <translation>在群聊中，每条消息及其话题中的回复各成一个会话（对话题的回答留在话题中）；关闭：每个群一个会话。</translation>
        </message>
        <message>
            <source>Advanced: the Open API address to use instead of the platform's (a proxy or a private deployment); empty: from Platform.</source>
            <translation>高级：代替平台地址使用的 Open API 地址（代理或私有部署）；留空：按“平台”决定。</translation>
        </message>
        <message>
            <source>Homeserver</source>
            <translation>Homeserver</translation>
        </message>
        <message>
            <source>The address of the bot account's homeserver (https://matrix.example.org).</source>
            <translation>机器人账号所在 homeserver 的地址（https://matrix.example.org）。</translation>
        </message>
        <message>
            <source>User ID</source>
            <translation>用户 ID</translation>
        </message>
        <message>
            <source>The bot account's full Matrix ID, e.g. @nanobot:matrix.org.</source>
            <translation>机器人账号的完整 Matrix ID，例如 @nanobot:matrix.org。</translation>
        </message>
        <message>
            <source>Password</source>
            <translation>密码</translation>
        </message>
        <message>
            <source>Log in with the account's password (a new session each start, logged out on stop). Leave empty when you give an access token.</source>
            <translation>用账号密码登录（每次启动新建会话，停止时登出）。提供访问令牌时请留空。</translation>
        </message>
        <message>
            <source>Access token</source>
            <translation>访问令牌</translation>
        </message>
        <message>
            <source>An access token of the bot account (Element: Settings → Help &amp; About → Access token, or the login API). Preferred over a password.</source>
            <translation>机器人账号的访问令牌（Element：设置 → 帮助与关于 → 访问令牌，或通过登录 API）。优先于密码使用。</translation>
        </message>
        <message>
            <source>Device ID</source>
            <translation>设备 ID</translation>
        </message>
        <message>
            <source>The session (device) the access token belongs to; optional.</source>
            <translation>访问令牌所属的会话（设备）；可选。</translation>
        </message>
        <message>
            <source>End-to-end encryption</source>
            <translation>端到端加密</translation>
        </message>
        <message>
            <source>Read and answer in encrypted rooms. Needs an access token (its device keeps its keys in a local store, encrypted with a key derived from the token); with a password login, or turned off, encrypted rooms get a short notice instead.</source>
            <translation>在加密房间中读取和回答。需要访问令牌（其设备把密钥保存在本地存储中，用从令牌派生的密钥加密）；用密码登录或关闭此项时，加密房间只会收到一条简短提示。</translation>
        </message>
        <message>
            <source>Emoji verification</source>
            <translation>表情验证</translation>
        </message>
        <message>
            <source>Kept for nanobot compatibility; has no effect (the bot does not verify devices: it sends to unverified ones).</source>
            <translation>为兼容 nanobot 而保留；不起作用（机器人不验证设备，会向未验证的设备发送）。</translation>
        </message>
        <message>
            <source>Stop grace (s)</source>
            <translation>停止宽限（秒）</translation>
        </message>
        <message>
            <source>How long stopping the channel waits for a clean log-out.</source>
            <translation>停止渠道时等待正常登出的时间。</translation>
        </message>
        <message>
            <source>Received files larger than this are not downloaded (0: none are).</source>
            <translation>大于此值的接收文件不会下载（0：都不下载）。</translation>
        </message>
        <message>
            <source>Parallel downloads</source>
            <translation>并行下载数</translation>
        </message>
        <message>
            <source>How many received files are downloaded at the same time.</source>
            <translation>同时下载的接收文件数量。</translation>
        </message>
        <message>
            <source>Group rooms</source>
            <translation>群组房间</translation>
        </message>
        <message>
            <source>Rooms with more than two members: open (answer every allowed sender), mention (only when the bot is mentioned or replied to) or allowlist (only the rooms in Group rooms allowed). Direct chats are always answered.</source>
            <translation>两人以上的房间：open（回答每个允许的发送者）、mention（只在机器人被提及或被回复时）或 allowlist（只在“允许的群组房间”中）。私聊总是会回答。</translation>
        </message>
        <message>
            <source>Group rooms allowed</source>
            <translation>允许的群组房间</translation>
        </message>
        <message>
            <source>Room IDs (!abc:server) answered under the allowlist group policy.</source>
            <translation>在 allowlist 群组策略下回答的房间 ID（!abc:server）。</translation>
        </message>
        <message>
            <source>Answer @room</source>
            <translation>回应 @room</translation>
        </message>
        <message>
            <source>Under the mention policy, an @room mention also counts as a mention.</source>
            <translation>在 mention 策略下，@room 也算作提及。</translation>
        </message>
        <message>
            <source>Kept for nanobot compatibility; answers are sent whole.</source>
            <translation>为兼容 nanobot 而保留；回答会整条发送。</translation>
        </message>
        <message>
            <source>An HTTP or SOCKS proxy for the homeserver connection (http://host:port).</source>
            <translation>连接 homeserver 所用的 HTTP 或 SOCKS 代理（http://host:port）。</translation>
        </message>
        <message>
            <source>Server address</source>
            <translation>服务器地址</translation>
        </message>
        <message>
            <source>Your Mattermost server, e.g. "https://chat.example.org".</source>
            <translation>你的 Mattermost 服务器，例如 "https://chat.example.org"。</translation>
        </message>
        <message>
            <source>The bot account's access token (Integrations → Bot Accounts), or a personal access token. Kept in the keyring.</source>
            <translation>机器人账号的访问令牌（Integrations → Bot Accounts），或个人访问令牌。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Team ID</source>
            <translation>团队 ID</translation>
        </message>
        <message>
            <source>Answer only in this team's channels (direct messages always). Empty: all.</source>
            <translation>只在此团队的频道中回答（私信总是回答）。留空：所有团队。</translation>
        </message>
        <message>
            <source>Match allowed senders by</source>
            <translation>允许的发送者按此匹配</translation>
        </message>
        <message>
            <source>What the Allowed senders entries are: user ids (safest: they never change), usernames or e-mail addresses.</source>
            <translation>“允许的发送者”中各项的类型：用户 ID（最安全：永不改变）、用户名或电子邮件地址。</translation>
        </message>
        <message>
            <source>Channel policy</source>
            <translation>频道策略</translation>
        </message>
        <message>
            <source>In channels, answer only messages that @mention the bot ("mention"), every message ("open"), or messages in the channels listed below ("allowlist").</source>
            <translation>在频道中，只回答 @ 机器人的消息（"mention"）、回答每条消息（"open"），或回答下方所列频道中的消息（"allowlist"）。</translation>
        </message>
        <message>
            <source>Policy inside threads</source>
            <translation>话题串内的策略</translation>
        </message>
        <message>
            <source>The same choice for replies inside a thread (by default: as channels).</source>
            <translation>对话题串内回复的同样选择（默认：与频道相同）。</translation>
        </message>
        <message>
            <source>Channel IDs the bot answers in with the "allowlist" policy.</source>
            <translation>在 "allowlist" 策略下机器人回答的频道 ID。</translation>
        </message>
        <message>
            <source>Reply in thread</source>
            <translation>在话题串中回复</translation>
        </message>
        <message>
            <source>Answer a channel message in a thread under it (each thread is its own conversation). Messages written inside a thread are always answered there.</source>
            <translation>在频道消息下方的话题串中回答（每个话题串是独立的会话）。话题串内的消息总是在该话题串中回答。</translation>
        </message>
        <message>
            <source>Thread context</source>
            <translation>话题串上下文</translation>
        </message>
        <message>
            <source>nanobot's earlier-thread-messages context; not used by the desktop app.</source>
            <translation>nanobot 的话题串早期消息上下文；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Thread context limit</source>
            <translation>话题串上下文上限</translation>
        </message>
        <message>
            <source>nanobot's number of earlier thread messages; not used by the desktop app.</source>
            <translation>nanobot 读取的话题串早期消息数；桌面应用不使用。</translation>
        </message>
        <message>
            <source>nanobot's streamed answers; the desktop app sends each answer whole.</source>
            <translation>nanobot 的流式回答；桌面应用会整条发送每个回答。</translation>
        </message>
        <message>
            <source>Reaction (a Mattermost emoji name, e.g. "eyes") on a message while the agent works on it (empty: none).</source>
            <translation>智能体处理消息时添加的表情回应（Mattermost 表情名，例如 "eyes"；留空：不添加）。</translation>
        </message>
        <message>
            <source>Reaction put on the message once it is answered (empty: none).</source>
            <translation>回答后添加到消息上的表情回应（留空：不添加）。</translation>
        </message>
        <message>
            <source>The Mochat server; answers are posted to &lt;server&gt;/api/claw/….</source>
            <translation>Mochat 服务器；回答发布到 &lt;server&gt;/api/claw/…。</translation>
        </message>
        <message>
            <source>Claw token</source>
            <translation>Claw 令牌</translation>
        </message>
        <message>
            <source>The agent's token from Mochat's registration (claw_…). Kept in the keyring.</source>
            <translation>智能体在 Mochat 注册时获得的令牌（claw_…）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Agent user ID</source>
            <translation>智能体用户 ID</translation>
        </message>
        <message>
            <source>The agent's own Mochat user id (botUserId): its own messages are not answered and mentions of it are recognised.</source>
            <translation>智能体自己的 Mochat 用户 ID（botUserId）：不回答它自己的消息，并能识别对它的提及。</translation>
        </message>
        <message>
            <source>Sessions</source>
            <translation>会话</translation>
        </message>
        <message>
            <source>Session ids to answer in (direct chats), one per line; "*": every session.</source>
            <translation>要回答的会话 ID（私聊），每行一个；"*"：所有会话。</translation>
        </message>
        <message>
            <source>Panels</source>
            <translation>面板</translation>
        </message>
        <message>
            <source>Panel ids to answer in (group channels), one per line; "*": every panel.</source>
            <translation>要回答的面板 ID（群组频道），每行一个；"*"：所有面板。</translation>
        </message>
        <message>
            <source>Socket.IO server</source>
            <translation>Socket.IO 服务器</translation>
        </message>
        <message>
            <source>Where the real-time connection goes (empty: the server above).</source>
            <translation>实时连接的地址（留空：上面的服务器）。</translation>
        </message>
        <message>
            <source>Socket.IO path</source>
            <translation>Socket.IO 路径</translation>
        </message>
        <message>
            <source>The Socket.IO endpoint's path.</source>
            <translation>Socket.IO 端点的路径。</translation>
        </message>
        <message>
            <source>No msgpack</source>
            <translation>不使用 msgpack</translation>
        </message>
        <message>
            <source>Send Socket.IO packets as JSON. Otherwise msgpack is used when the msgpack package is installed (JSON without it).</source>
            <translation>以 JSON 发送 Socket.IO 数据包。否则在安装了 msgpack 包时使用 msgpack（未安装则用 JSON）。</translation>
        </message>
        <message>
            <source>Reconnect delay (ms)</source>
            <translation>重连延迟（毫秒）</translation>
        </message>
        <message>
            <source>nanobot's first reconnect delay; the desktop app reconnects with its own backoff.</source>
            <translation>nanobot 的首次重连延迟；桌面应用按自己的退避策略重连。</translation>
        </message>
        <message>
            <source>Longest reconnect delay (ms)</source>
            <translation>最长重连延迟（毫秒）</translation>
        </message>
        <message>
            <source>nanobot's; the desktop app reconnects with its own backoff.</source>
            <translation>nanobot 的设置；桌面应用按自己的退避策略重连。</translation>
        </message>
        <message>
            <source>Connect timeout (ms)</source>
            <translation>连接超时（毫秒）</translation>
        </message>
        <message>
            <source>How long connecting may take before it counts as failed.</source>
            <translation>连接超过此时间即视为失败。</translation>
        </message>
        <message>
            <source>Refresh interval (ms)</source>
            <translation>刷新间隔（毫秒）</translation>
        </message>
        <message>
            <source>How often the session and panel lists are fetched again (for "*").</source>
            <translation>重新获取会话和面板列表的频率（用于 "*"）。</translation>
        </message>
        <message>
            <source>Watch timeout (ms)</source>
            <translation>监听超时（毫秒）</translation>
        </message>
        <message>
            <source>nanobot's HTTP long-poll fallback; not used by the desktop app.</source>
            <translation>nanobot 的 HTTP 长轮询后备方案；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Watch limit</source>
            <translation>监听上限</translation>
        </message>
        <message>
            <source>How many missed events a session subscription catches up at most.</source>
            <translation>会话订阅最多补取的错过事件数。</translation>
        </message>
        <message>
            <source>Retry delay (ms)</source>
            <translation>重试延迟（毫秒）</translation>
        </message>
        <message>
            <source>nanobot's HTTP fallback retry delay; not used by the desktop app.</source>
            <translation>nanobot 的 HTTP 后备重试延迟；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Reconnect attempts</source>
            <translation>重连次数</translation>
        </message>
        <message>
            <source>nanobot's (0: unlimited); the desktop app always reconnects.</source>
            <translation>nanobot 的设置（0：不限）；桌面应用总是会重连。</translation>
        </message>
        <message>
            <source>Reply delay</source>
            <translation>回复延迟</translation>
        </message>
        <message>
            <source>In panels, "non-mention" collects messages that do not mention the agent and hands them over together after the reply delay (a mention hands them over at once); "off" answers every message as it comes.</source>
            <translation>在面板中，"non-mention" 会收集未提及智能体的消息，并在回复延迟后一并交给它（提及会立即交出）；"off" 逐条回答每条消息。</translation>
        </message>
        <message>
            <source>Reply delay (ms)</source>
            <translation>回复延迟（毫秒）</translation>
        </message>
        <message>
            <source>How long panel messages without a mention are collected.</source>
            <translation>收集面板中未提及消息的时长。</translation>
        </message>
        <message>
            <source>The bot's Microsoft App ID (Azure Bot → Configuration).</source>
            <translation>机器人的 Microsoft App ID（Azure Bot → Configuration）。</translation>
        </message>
        <message>
            <source>App password</source>
            <translation>应用密码</translation>
        </message>
        <message>
            <source>A client secret of that app (Certificates &amp; secrets). Kept in the keyring.</source>
            <translation>该应用的客户端密码（Certificates &amp; secrets）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Tenant ID</source>
            <translation>租户 ID</translation>
        </message>
        <message>
            <source>For a single-tenant bot, its Microsoft Entra tenant ID; empty otherwise.</source>
            <translation>单租户机器人填写其 Microsoft Entra 租户 ID；否则留空。</translation>
        </message>
        <message>
            <source>Listen address</source>
            <translation>监听地址</translation>
        </message>
        <message>
            <source>Where the messaging endpoint listens (0.0.0.0: every interface).</source>
            <translation>消息端点监听的地址（0.0.0.0：所有网络接口）。</translation>
        </message>
        <message>
            <source>Port</source>
            <translation>端口</translation>
        </message>
        <message>
            <source>Its port.</source>
            <translation>它的端口。</translation>
        </message>
        <message>
            <source>Path</source>
            <translation>路径</translation>
        </message>
        <message>
            <source>Its path; the bot's messaging endpoint is https://&lt;public host&gt;&lt;path&gt;.</source>
            <translation>它的路径；机器人的消息端点是 https://&lt;public host&gt;&lt;path&gt;。</translation>
        </message>
        <message>
            <source>Reply to the message</source>
            <translation>回复该消息</translation>
        </message>
        <message>
            <source>Send each answer as a reply to the message it answers.</source>
            <translation>把每个回答作为对所答消息的回复发送。</translation>
        </message>
        <message>
            <source>Text of an empty mention</source>
            <translation>空提及的文字</translation>
        </message>
        <message>
            <source>What the agent reads when a message is only an @mention of the bot.</source>
            <translation>消息仅 @ 了机器人时，智能体读到的文字。</translation>
        </message>
        <message>
            <source>Check Microsoft's signature</source>
            <translation>检查 Microsoft 签名</translation>
        </message>
        <message>
            <source>nanobot's switch to accept unsigned requests; the desktop app always checks them.</source>
            <translation>nanobot 用于接受未签名请求的开关；桌面应用总是检查签名。</translation>
        </message>
        <message>
            <source>Conversation memory (days)</source>
            <translation>会话记忆（天）</translation>
        </message>
        <message>
            <source>nanobot's.</source>
            <translation>nanobot 的设置。</translation>
        </message>
        <message>
            <source>Prune Web Chat</source>
            <translation>清理 Web Chat</translation>
        </message>
        <message>
            <source>Prune group chats</source>
            <translation>清理群聊</translation>
        </message>
        <message>
            <source>Touch interval</source>
            <translation>刷新间隔</translation>
        </message>
        <message>
            <source>Trusted service hosts</source>
            <translation>可信的服务主机</translation>
        </message>
        <message>
            <source>Hosts the bot may answer to (Microsoft's by default; "*." matches subdomains).</source>
            <translation>机器人可以回应的主机（默认是 Microsoft 的；"*." 匹配子域名）。</translation>
        </message>
        <message>
            <source>Sign-in keys address</source>
            <translation>签名密钥地址</translation>
        </message>
        <message>
            <source>Where Microsoft publishes the keys requests are signed with. Tests only.</source>
            <translation>Microsoft 发布请求签名密钥的地址。仅供测试。</translation>
        </message>
        <message>
            <source>Token service address</source>
            <translation>令牌服务地址</translation>
        </message>
        <message>
            <source>Where the bot gets its tokens (the tenant is appended). Tests only.</source>
            <translation>机器人获取令牌的地址（会附加租户）。仅供测试。</translation>
        </message>
        <message>
            <source>NapCat address</source>
            <translation>NapCat 地址</translation>
        </message>
        <message>
            <source>The WebSocket server NapCat runs (its OneBot v11 WebSocket server).</source>
            <translation>NapCat 运行的 WebSocket 服务器（其 OneBot v11 WebSocket 服务器）。</translation>
        </message>
        <message>
            <source>The token set on NapCat's WebSocket server (empty: none). Kept in the keyring.</source>
            <translation>NapCat WebSocket 服务器上设置的令牌（留空：无）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Group policy</source>
            <translation>群聊策略</translation>
        </message>
        <message>
            <source>In groups, answer only mentions of the account and replies to it ("mention"), every message ("open"), or other messages too with a probability from 0 to 1.</source>
            <translation>在群聊中，只回答提及该账号或回复它的消息（"mention"）、回答每条消息（"open"），或以 0 到 1 之间的概率也回答其他消息。</translation>
        </message>
        <message>
            <source>Group policy per group</source>
            <translation>按群设置的策略</translation>
        </message>
        <message>
            <source>A group id → its own policy.</source>
            <translation>群 ID → 该群自己的策略。</translation>
        </message>
        <message>
            <source>Welcome new members</source>
            <translation>欢迎新成员</translation>
        </message>
        <message>
            <source>Tell the agent when someone joins a group, so it can greet them.</source>
            <translation>有人入群时告诉智能体，以便它打招呼。</translation>
        </message>
        <message>
            <source>Largest image</source>
            <translation>最大图片</translation>
        </message>
        <message>
            <source>Received images larger than this (bytes) are not downloaded.</source>
            <translation>大于此值（字节）的接收图片不会下载。</translation>
        </message>
        <message>
            <source>AppID</source>
            <translation>AppID</translation>
        </message>
        <message>
            <source>The bot's AppID (q.qq.com → your bot → Development → Settings).</source>
            <translation>机器人的 AppID（q.qq.com → 你的机器人 → 开发 → 开发设置）。</translation>
        </message>
        <message>
            <source>AppSecret</source>
            <translation>AppSecret</translation>
        </message>
        <message>
            <source>The bot's AppSecret from the same page. Kept in the keyring.</source>
            <translation>同一页面上机器人的 AppSecret。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Message format</source>
            <translation>消息格式</translation>
        </message>
        <message>
            <source>Send answers as plain text or as QQ markdown ("markdown" needs the markdown permission on the QQ Open Platform).</source>
            <translation>以纯文本或 QQ Markdown 发送回答（"markdown" 需要在 QQ 开放平台开通 Markdown 权限）。</translation>
        </message>
        <message>
            <source>Acknowledgement</source>
            <translation>收到确认</translation>
        </message>
        <message>
            <source>Sent as soon as a message arrives, before the answer (empty: none).</source>
            <translation>消息一到就发送，在回答之前（留空：不发送）。</translation>
        </message>
        <message>
            <source>Media folder</source>
            <translation>媒体文件夹</translation>
        </message>
        <message>
            <source>Where received files are saved (empty: the workspace's media folder).</source>
            <translation>接收文件的保存位置（留空：工作区的 media 文件夹）。</translation>
        </message>
        <message>
            <source>Download chunk size</source>
            <translation>下载块大小</translation>
        </message>
        <message>
            <source>Bytes read at a time when a received file is downloaded.</source>
            <translation>下载接收文件时每次读取的字节数。</translation>
        </message>
        <message>
            <source>Largest download</source>
            <translation>最大下载</translation>
        </message>
        <message>
            <source>Received files larger than this many bytes are not downloaded.</source>
            <translation>大于此字节数的接收文件不会下载。</translation>
        </message>
        <message>
            <source>Phone number</source>
            <translation>电话号码</translation>
        </message>
        <message>
            <source>The Signal account signal-cli is registered with, e.g. +4915112345678.</source>
            <translation>signal-cli 注册所用的 Signal 账号，例如 +4915112345678。</translation>
        </message>
        <message>
            <source>Daemon host</source>
            <translation>守护进程主机</translation>
        </message>
        <message>
            <source>Where `signal-cli -a &lt;number&gt; daemon --http &lt;host&gt;:&lt;port&gt;` listens.</source>
            <translation>`signal-cli -a &lt;number&gt; daemon --http &lt;host&gt;:&lt;port&gt;` 监听的地址。</translation>
        </message>
        <message>
            <source>Daemon port</source>
            <translation>守护进程端口</translation>
        </message>
        <message>
            <source>The daemon's HTTP port.</source>
            <translation>守护进程的 HTTP 端口。</translation>
        </message>
        <message>
            <source>Group context</source>
            <translation>群聊上下文</translation>
        </message>
        <message>
            <source>How many recent group messages are passed along with a mention.</source>
            <translation>随提及一起传递的最近群消息数。</translation>
        </message>
        <message>
            <source>Attachments folder</source>
            <translation>附件文件夹</translation>
        </message>
        <message>
            <source>Where signal-cli saves received attachments (empty: ~/.local/share/signal-cli/attachments).</source>
            <translation>signal-cli 保存接收附件的位置（留空：~/.local/share/signal-cli/attachments）。</translation>
        </message>
        <message>
            <source>The app's Bot User OAuth Token (xoxb-…, OAuth &amp; Permissions). Kept in the keyring.</source>
            <translation>应用的 Bot User OAuth Token（xoxb-…，OAuth &amp; Permissions）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>App token</source>
            <translation>应用令牌</translation>
        </message>
        <message>
            <source>An app-level token with the connections:write scope (xapp-…, Basic Information → App-Level Tokens); Socket Mode connects with it. Kept in the keyring.</source>
            <translation>具有 connections:write 权限的应用级令牌（xapp-…，Basic Information → App-Level Tokens）；Socket Mode 用它连接。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Mode</source>
            <translation>模式</translation>
        </message>
        <message>
            <source>How events arrive. The desktop app uses Socket Mode; nanobot's webhook mode (a public HTTPS server) is not available here.</source>
            <translation>事件的接收方式。桌面应用使用 Socket Mode；nanobot 的 Webhook 模式（公网 HTTPS 服务器）在这里不可用。</translation>
        </message>
        <message>
            <source>Webhook path</source>
            <translation>Webhook 路径</translation>
        </message>
        <message>
            <source>nanobot's webhook mode only.</source>
            <translation>仅用于 nanobot 的 Webhook 模式。</translation>
        </message>
        <message>
            <source>Reaction (a Slack emoji name, e.g. "eyes") on a message while the agent works on it (empty: none).</source>
            <translation>智能体处理消息时添加的表情回应（Slack 表情名，例如 "eyes"；留空：不添加）。</translation>
        </message>
        <message>
            <source>Channel IDs (C…) the bot answers in with the "allowlist" policy.</source>
            <translation>在 "allowlist" 策略下机器人回答的频道 ID（C…）。</translation>
        </message>
        <message>
            <source>Require a mention in allowed channels</source>
            <translation>在允许的频道中要求提及</translation>
        </message>
        <message>
            <source>With the "allowlist" policy, answer only messages that @mention the bot.</source>
            <translation>在 "allowlist" 策略下，只回答 @ 机器人的消息。</translation>
        </message>
        <message>
            <source>HTTP proxy for the Web API and Socket Mode, e.g. "http://127.0.0.1:8080".</source>
            <translation>用于 Web API 和 Socket Mode 的 HTTP 代理，例如 "http://127.0.0.1:8080"。</translation>
        </message>
        <message>
            <source>Web API address</source>
            <translation>Web API 地址</translation>
        </message>
        <message>
            <source>Where Slack's Web API is. Change it only for testing.</source>
            <translation>Slack Web API 的地址。仅在测试时修改。</translation>
        </message>
        <message>
            <source>The token @BotFather gave you for your bot (/newbot). Kept in the keyring.</source>
            <translation>@BotFather 为你的机器人给出的令牌（/newbot）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>How updates arrive. The desktop app long-polls; webhook mode is nanobot's (a public HTTPS server) and is not available here.</source>
            <translation>更新的接收方式。桌面应用使用长轮询；Webhook 模式属于 nanobot（公网 HTTPS 服务器），在这里不可用。</translation>
        </message>
        <message>
            <source>HTTP or SOCKS proxy for the Bot API, e.g. "http://127.0.0.1:8080".</source>
            <translation>用于 Bot API 的 HTTP 或 SOCKS 代理，例如 "http://127.0.0.1:8080"。</translation>
        </message>
        <message>
            <source>Send answers as replies to the message they answer.</source>
            <translation>以回复所答消息的形式发送回答。</translation>
        </message>
        <message>
            <source>In groups, answer every message ("open") or only messages that mention the bot or reply to it ("mention").</source>
            <translation>在群组中，回答每条消息（"open"），或只回答提及机器人或回复机器人的消息（"mention"）。</translation>
        </message>
        <message>
            <source>Connection pool size</source>
            <translation>连接池大小</translation>
        </message>
        <message>
            <source>Parallel connections for sending.</source>
            <translation>用于发送的并行连接数。</translation>
        </message>
        <message>
            <source>Pool timeout</source>
            <translation>连接池超时</translation>
        </message>
        <message>
            <source>Seconds to wait for a free connection before a send fails.</source>
            <translation>发送失败前等待空闲连接的秒数。</translation>
        </message>
        <message>
            <source>Inline keyboards</source>
            <translation>内联键盘</translation>
        </message>
        <message>
            <source>nanobot's buttons in answers; not used by the desktop app (approval questions always come with buttons).</source>
            <translation>nanobot 在回答中的按钮；桌面应用不使用（审批提问总是带按钮）。</translation>
        </message>
        <message>
            <source>Rich messages</source>
            <translation>富文本消息</translation>
        </message>
        <message>
            <source>nanobot's Bot API 10.1 rich messages; not used by the desktop app.</source>
            <translation>nanobot 的 Bot API 10.1 富文本消息；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Stream edit interval</source>
            <translation>流式编辑间隔</translation>
        </message>
        <message>
            <source>nanobot's seconds between streamed edits; not used by the desktop app.</source>
            <translation>nanobot 两次流式编辑之间的秒数；桌面应用不使用。</translation>
        </message>
        <message>
            <source>Webhook URL</source>
            <translation>Webhook URL</translation>
        </message>
        <message>
            <source>nanobot's webhook mode only (public HTTPS URL).</source>
            <translation>仅用于 nanobot 的 Webhook 模式（公网 HTTPS URL）。</translation>
        </message>
        <message>
            <source>Webhook listen host</source>
            <translation>Webhook 监听主机</translation>
        </message>
        <message>
            <source>Webhook listen port</source>
            <translation>Webhook 监听端口</translation>
        </message>
        <message>
            <source>Webhook secret token</source>
            <translation>Webhook 密钥令牌</translation>
        </message>
        <message>
            <source>Webhook max connections</source>
            <translation>Webhook 最大连接数</translation>
        </message>
        <message>
            <source>Bot API server</source>
            <translation>Bot API 服务器</translation>
        </message>
        <message>
            <source>Where the Bot API is (calls go to &lt;server&gt;/bot&lt;token&gt;/&lt;method&gt;). Change it only for a self-hosted Bot API server.</source>
            <translation>Bot API 的地址（调用发往 &lt;server&gt;/bot&lt;token&gt;/&lt;method&gt;）。仅在使用自建 Bot API 服务器时修改。</translation>
        </message>
        <message>
            <source>Allowed clients</source>
            <translation>允许的客户端</translation>
        </message>
        <message>
            <source>Client ids (?client_id=…) that may talk to the agent; "*" for every client that has a valid token. Client ids are chosen by the client: the token is the lock.</source>
            <translation>可以与智能体对话的客户端 ID（?client_id=…）；"*" 表示所有持有效令牌的客户端。客户端 ID 由客户端自选：真正把关的是令牌。</translation>
        </message>
        <message>
            <source>Listen on</source>
            <translation>监听地址</translation>
        </message>
        <message>
            <source>The address to listen on: 127.0.0.1 for this computer only; 0.0.0.0 for every device on your network (needs a token or token issue secret).</source>
            <translation>监听的地址：127.0.0.1 仅限本机；0.0.0.0 允许网络中的所有设备（需要令牌或令牌签发密钥）。</translation>
        </message>
        <message>
            <source>The port to listen on.</source>
            <translation>监听的端口。</translation>
        </message>
        <message>
            <source>WebSocket path</source>
            <translation>WebSocket 路径</translation>
        </message>
        <message>
            <source>The WebSocket upgrade path.</source>
            <translation>WebSocket 升级路径。</translation>
        </message>
        <message>
            <source>Token</source>
            <translation>令牌</translation>
        </message>
        <message>
            <source>A fixed secret clients may send as ?token=… (and the WebUI's login secret when no token issue secret is set). Kept in the keyring.</source>
            <translation>客户端可以用 ?token=… 发送的固定密钥（未设置令牌签发密钥时，也是 WebUI 的登录密钥）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Token issue path</source>
            <translation>令牌签发路径</translation>
        </message>
        <message>
            <source>An HTTP path that hands out short-lived connection tokens (GET, with the token issue secret as a bearer token); empty: none.</source>
            <translation>发放短期连接令牌的 HTTP 路径（GET，以令牌签发密钥作为 Bearer 令牌）；留空：不提供。</translation>
        </message>
        <message>
            <source>Token issue secret</source>
            <translation>令牌签发密钥</translation>
        </message>
        <message>
            <source>What a client must show to get a short-lived token (the WebUI asks for it at login). Kept in the keyring.</source>
            <translation>客户端获取短期令牌时必须出示的密钥（WebUI 在登录时索要）。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Token lifetime (s)</source>
            <translation>令牌有效期（秒）</translation>
        </message>
        <message>
            <source>How long an issued token may be used to connect.</source>
            <translation>签发的令牌可用于连接的时长。</translation>
        </message>
        <message>
            <source>Require a token to connect</source>
            <translation>连接需要令牌</translation>
        </message>
        <message>
            <source>Refuse connections without a valid token (fixed or issued).</source>
            <translation>拒绝没有有效令牌（固定或签发的）的连接。</translation>
        </message>
        <message>
            <source>Stream answers</source>
            <translation>流式发送回答</translation>
        </message>
        <message>
            <source>Send the answer as it is written.</source>
            <translation>边写边发送回答。</translation>
        </message>
        <message>
            <source>Largest frame (bytes)</source>
            <translation>最大帧（字节）</translation>
        </message>
        <message>
            <source>Frames larger than this close the connection.</source>
            <translation>超过此大小的帧会关闭连接。</translation>
        </message>
        <message>
            <source>Ping interval (s)</source>
            <translation>Ping 间隔（秒）</translation>
        </message>
        <message>
            <source>Keep-alive pings.</source>
            <translation>保活 Ping。</translation>
        </message>
        <message>
            <source>Ping timeout (s)</source>
            <translation>Ping 超时（秒）</translation>
        </message>
        <message>
            <source>A client that does not answer a ping in this time is dropped.</source>
            <translation>在此时间内未响应 Ping 的客户端会被断开。</translation>
        </message>
        <message>
            <source>TLS certificate</source>
            <translation>TLS 证书</translation>
        </message>
        <message>
            <source>A PEM certificate file: serve wss:// and https:// (with the key below).</source>
            <translation>PEM 证书文件：提供 wss:// 和 https:// 服务（配合下面的私钥）。</translation>
        </message>
        <message>
            <source>TLS key</source>
            <translation>TLS 私钥</translation>
        </message>
        <message>
            <source>The PEM private key of the certificate.</source>
            <translation>证书的 PEM 私钥。</translation>
        </message>
        <message>
            <source>WebUI folder</source>
            <translation>WebUI 文件夹</translation>
        </message>
        <message>
            <source>nanobot's built WebUI (the folder holding index.html, nanobot/web/dist in the nanobot-ai package), or a Python environment where nanobot-ai is installed. Empty: found when nanobot-ai is importable here; otherwise no WebUI is served.</source>
            <translation>nanobot 已构建的 WebUI（包含 index.html 的文件夹，即 nanobot-ai 包中的 nanobot/web/dist），或安装了 nanobot-ai 的 Python 环境。留空：能在这里导入 nanobot-ai 时自动找到；否则不提供 WebUI。</translation>
        </message>
        <message>
            <source>Bot ID</source>
            <translation>Bot ID</translation>
        </message>
        <message>
            <source>The AI bot's Bot ID (WeCom admin console → AI bot → API mode: long connection).</source>
            <translation>智能机器人的 Bot ID（企业微信管理后台 → 智能机器人 → API 模式：长连接）。</translation>
        </message>
        <message>
            <source>Secret</source>
            <translation>Secret</translation>
        </message>
        <message>
            <source>The AI bot's Secret, shown beside the Bot ID. Kept in the keyring.</source>
            <translation>智能机器人的 Secret，显示在 Bot ID 旁边。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Welcome message</source>
            <translation>欢迎语</translation>
        </message>
        <message>
            <source>Sent when someone allowed opens a chat with the bot (empty: no greeting).</source>
            <translation>允许的用户打开与机器人的聊天时发送（留空：不打招呼）。</translation>
        </message>
        <message>
            <source>Where the long connection goes (WeCom's own endpoint unless told otherwise).</source>
            <translation>长连接的地址（除非另行指定，否则为企业微信自己的端点）。</translation>
        </message>
        <message>
            <source>Empty: the QR login's token (saved with the account). A token typed here is kept in the keyring and used instead.</source>
            <translation>留空：使用扫码登录的令牌（随账号保存）。在这里输入的令牌会保存在密钥环中并优先使用。</translation>
        </message>
        <message>
            <source>The iLink bot API's address.</source>
            <translation>iLink 机器人 API 的地址。</translation>
        </message>
        <message>
            <source>CDN server</source>
            <translation>CDN 服务器</translation>
        </message>
        <message>
            <source>Where the pictures and files people send are downloaded from.</source>
            <translation>下载对方发来的图片和文件的地址。</translation>
        </message>
        <message>
            <source>Route tag</source>
            <translation>路由标签</translation>
        </message>
        <message>
            <source>Account folder</source>
            <translation>账号文件夹</translation>
        </message>
        <message>
            <source>Where the login is kept (empty: the weixin folder beside config.json).</source>
            <translation>登录信息的保存位置（留空：config.json 旁边的 weixin 文件夹）。</translation>
        </message>
        <message>
            <source>Long-poll timeout (s)</source>
            <translation>长轮询超时（秒）</translation>
        </message>
        <message>
            <source>How long one wait for new messages may last.</source>
            <translation>一次等待新消息的最长时间。</translation>
        </message>
        <message>
            <source>In groups, answer every message ("open") or only messages that mention the linked account or reply to it ("mention").</source>
            <translation>在群组中，回答每条消息（"open"），或只回答提及已关联账号或回复它的消息（"mention"）。</translation>
        </message>
        <message>
            <source>Session database</source>
            <translation>会话数据库</translation>
        </message>
        <message>
            <source>The linked-device session (neonize's SQLite file). Empty: whatsapp-auth/neonize.db beside the config file, where nanobot keeps it, so one linking serves both.</source>
            <translation>已关联设备的会话（neonize 的 SQLite 文件）。留空：配置文件旁的 whatsapp-auth/neonize.db，也是 nanobot 存放它的位置，因此关联一次两者都能用。</translation>
        </message>
        <message>
            <source>An HTTP or SOCKS proxy for the WhatsApp connection (host:port or a URL).</source>
            <translation>用于 WhatsApp 连接的 HTTP 或 SOCKS 代理（host:port 或 URL）。</translation>
        </message>
        <message>
            <source>LID mappings</source>
            <translation>LID 映射</translation>
        </message>
        <message>
            <source>WhatsApp's hidden ids (LID) → phone numbers, for Allowed senders.</source>
            <translation>WhatsApp 的隐藏 ID（LID）→ 电话号码，用于“允许的发送者”。</translation>
        </message>
        <message>
            <source>Bridge address (legacy)</source>
            <translation>桥接地址（旧版）</translation>
        </message>
        <message>
            <source>Only for the old nanobot WhatsApp bridge: its WebSocket address (e.g. ws://localhost:3001). Empty: WhatsApp is linked directly (recommended).</source>
            <translation>仅用于旧版 nanobot WhatsApp 桥接：它的 WebSocket 地址（例如 ws://localhost:3001）。留空：直接关联 WhatsApp（推荐）。</translation>
        </message>
        <message>
            <source>Bridge token (legacy)</source>
            <translation>桥接令牌（旧版）</translation>
        </message>
        <message>
            <source>Only with a bridge address: the BRIDGE_TOKEN the bridge was started with. Empty: the token nanobot saved in whatsapp-auth/bridge-token. Kept in the keyring.</source>
            <translation>仅在设置了桥接地址时使用：启动桥接时所用的 BRIDGE_TOKEN。留空：nanobot 保存在 whatsapp-auth/bridge-token 中的令牌。保存在密钥环中。</translation>
        </message>
        <message>
            <source>Region</source>
            <translation>区域</translation>
        </message>
        <message>
            <source>The AWS region, e.g. us-east-1 (else AWS_REGION or the profile's).</source>
            <translation>AWS 区域，例如 us-east-1（否则用 AWS_REGION 或配置文件中的区域）。</translation>
        </message>
        <message>
            <source>e.g. us-east-1</source>
            <translation>例如 us-east-1</translation>
        </message>
        <message>
            <source>Profile</source>
            <translation>配置文件</translation>
        </message>
        <message>
            <source>A profile of ~/.aws/config whose credentials sign the requests.</source>
            <translation>~/.aws/config 中的一个配置文件，用其凭证为请求签名。</translation>
        </message>
        <message>
            <source>a profile of ~/.aws/config</source>
            <translation>~/.aws/config 中的配置文件</translation>
        </message>
        <message>
            <source>Run Dream periodically</source>
            <translation>定期运行梦境整理</translation>
        </message>
        <message>
            <source>Run every</source>
            <translation>运行间隔</translation>
        </message>
        <message>
            <source>Hours between two Dream runs.</source>
            <translation>两次梦境整理之间的小时数。</translation>
        </message>
        <message>
            <source>h</source>
            <translation>小时</translation>
        </message>
        <message>
            <source>History entries per run</source>
            <translation>每次处理的历史条目</translation>
        </message>
        <message>
            <source>How many history entries one Dream run distils.</source>
            <translation>一次梦境整理提炼的历史条目数。</translation>
        </message>
        <message>
            <source>entries</source>
            <translation>条</translation>
        </message>
        <message>
            <source>Edit iterations per run</source>
            <translation>每次的编辑轮数</translation>
        </message>
        <message>
            <source>Model calls Dream may make to edit the memory files in one run.</source>
            <translation>一次梦境整理中为编辑记忆文件可调用模型的次数。</translation>
        </message>
        <message>
            <source>Token budget per run</source>
            <translation>每次的令牌预算</translation>
        </message>
        <message>
            <source>Tokens (prompt and answer) one run may spend editing; it stops cleanly there.</source>
            <translation>一次运行编辑时可花费的令牌（提示和回答）；达到后会正常停止。</translation>
        </message>
        <message>
            <source>tokens</source>
            <translation>令牌</translation>
        </message>
        <message>
            <source>Workspace</source>
            <translation>工作区</translation>
        </message>
        <message>
            <source>Where sessions, memory, skills and reminders live.</source>
            <translation>会话、记忆、技能和提醒的存放位置。</translation>
        </message>
        <message>
            <source>Max tokens per answer</source>
            <translation>每次回答的最大令牌数</translation>
        </message>
        <message>
            <source>The longest answer the model may write in one call.</source>
            <translation>模型在一次调用中可写出的最长回答。</translation>
        </message>
        <message>
            <source>Context window</source>
            <translation>上下文窗口</translation>
        </message>
        <message>
            <source>How much of the conversation the model sees; older turns are archived into memory when it fills.</source>
            <translation>模型能看到的对话量；填满后，较早的轮次会归档到记忆中。</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Higher is more varied, lower more predictable.</source>
            <translation>越高越多样，越低越可预测。</translation>
        </message>
        <message>
            <source>Max tool iterations</source>
            <translation>最大工具调用轮数</translation>
        </message>
        <message>
            <source>Tool calls one turn may make before it stops.</source>
            <translation>一轮对话在停止前可进行的工具调用次数。</translation>
        </message>
        <message>
            <source>Timezone</source>
            <translation>时区</translation>
        </message>
        <message>
            <source>An IANA name such as Europe/Berlin; empty means the system's.</source>
            <translation>IANA 名称，如 Asia/Shanghai；留空表示使用系统时区。</translation>
        </message>
        <message>
            <source>One conversation for every chat network</source>
            <translation>所有聊天网络共用一个会话</translation>
        </message>
        <message>
            <source>Messages from Telegram, Slack, e-mail … all continue one session.</source>
            <translation>来自 Telegram、Slack、电子邮件等的消息都延续同一个会话。</translation>
        </message>
        <message>
            <source>Compact idle chats after</source>
            <translation>空闲聊天压缩时间</translation>
        </message>
        <message>
            <source>A chat idle this long is summarised, so its next turn costs less (0: never).</source>
            <translation>空闲这么久的聊天会被总结，下一轮的开销更小（0：从不）。</translation>
        </message>
        <message>
            <source>min</source>
            <translation>分钟</translation>
        </message>
        <message>
            <source>Longest message read</source>
            <translation>最长读取消息</translation>
        </message>
        <message>
            <source>A message longer than this (in UTF-8) is answered with a note to send it as a file, and never reaches the model or the chat's history.</source>
            <translation>超过此长度（UTF-8）的消息会收到一条请以文件发送的提示，不会进入模型或聊天历史。</translation>
        </message>
        <message>
            <source>KB</source>
            <translation>KB</translation>
        </message>
        <message>
            <source>Check HEARTBEAT.md periodically</source>
            <translation>定期检查 HEARTBEAT.md</translation>
        </message>
        <message>
            <source>Check every</source>
            <translation>检查间隔</translation>
        </message>
        <message>
            <source>Seconds between two looks at HEARTBEAT.md.</source>
            <translation>两次查看 HEARTBEAT.md 之间的秒数。</translation>
        </message>
        <message>
            <source>s</source>
            <translation>秒</translation>
        </message>
        <message>
            <source>Results per search</source>
            <translation>每次搜索的结果数</translation>
        </message>
        <message>
            <source>Exec timeout</source>
            <translation>命令超时</translation>
        </message>
        <message>
            <source>Seconds a command may run before it is stopped.</source>
            <translation>命令被停止前可运行的秒数。</translation>
        </message>
        <message>
            <source>Let sandboxed commands use the network</source>
            <translation>允许沙箱中的命令访问网络</translation>
        </message>
        <message>
            <source>Allow patterns</source>
            <translation>允许模式</translation>
        </message>
        <message>
            <source>Regular expressions (one per line); a command must match one when set.</source>
            <translation>正则表达式（每行一个）；设置后，命令必须匹配其中之一。</translation>
        </message>
        <message>
            <source>Deny patterns</source>
            <translation>拒绝模式</translation>
        </message>
        <message>
            <source>Regular expressions (one per line); a matching command is refused.</source>
            <translation>正则表达式（每行一个）；匹配的命令会被拒绝。</translation>
        </message>
        <message>
            <source>Let the agent check its own settings</source>
            <translation>允许智能体查看自己的设置</translation>
        </message>
        <message>
            <source>Let the agent change its own settings</source>
            <translation>允许智能体修改自己的设置</translation>
        </message>
        <message>
            <source>Each change still asks for approval (unless the approval mode is autonomous).</source>
            <translation>每次修改仍需审批（除非审批模式为自主）。</translation>
        </message>
        <message>
            <source>Restrict file and command tools to the workspace</source>
            <translation>将文件和命令工具限制在工作区内</translation>
        </message>
        <message>
            <source>Sign in with ChatGPT</source>
            <translation>用 ChatGPT 登录</translation>
        </message>
        <message>
            <source>Uses your ChatGPT plan (Plus, Pro, Team…) instead of an API key. Your browser opens to sign in and comes back here by itself.</source>
            <translation>使用你的 ChatGPT 套餐（Plus、Pro、Team…）代替 API 密钥。浏览器会打开以便登录，完成后自动回到这里。</translation>
        </message>
        <message>
            <source>Sign in with xAI</source>
            <translation>用 xAI 登录</translation>
        </message>
        <message>
            <source>Uses your xAI Grok subscription instead of an API key. Your browser opens to sign in to your xAI account and comes back here by itself.</source>
            <translation>使用你的 xAI Grok 订阅代替 API 密钥。浏览器会打开以便登录你的 xAI 账号，完成后自动回到这里。</translation>
        </message>
        <message>
            <source>Sign in with GitHub</source>
            <translation>用 GitHub 登录</translation>
        </message>
        <message>
            <source>Uses your GitHub Copilot plan instead of an API key. You type a short code on github.com to let nanobot Desktop in.</source>
            <translation>使用你的 GitHub Copilot 套餐代替 API 密钥。你需要在 github.com 上输入一个短代码来授权 nanobot Desktop。</translation>
        </message>
        <message>
            <source>Sign in to {provider}</source>
            <translation>登录 {provider}</translation>
        </message>
        <message>
            <source>{provider} sign-in state</source>
            <translation>{provider} 登录状态</translation>
        </message>
        <message>
            <source>{provider} sign-in instructions</source>
            <translation>{provider} 登录说明</translation>
        </message>
        <message>
            <source>{provider} sign-in code</source>
            <translation>{provider} 登录代码</translation>
        </message>
        <message>
            <source>{action} ({provider})</source>
            <translation>{action}（{provider}）</translation>
        </message>
        <message>
            <source>Copy the {provider} sign-in code</source>
            <translation>复制 {provider} 登录代码</translation>
        </message>
        <message>
            <source>Open browser</source>
            <translation>打开浏览器</translation>
        </message>
        <message>
            <source>Open the {provider} sign-in page</source>
            <translation>打开 {provider} 登录页面</translation>
        </message>
        <message>
            <source>Cancel signing in to {provider}</source>
            <translation>取消登录 {provider}</translation>
        </message>
        <message>
            <source>Sign out of {provider}</source>
            <translation>退出 {provider} 登录</translation>
        </message>
        <message>
            <source>{provider} sign-in status</source>
            <translation>{provider} 登录结果</translation>
        </message>
        <message>
            <source>Not signed in.</source>
            <translation>未登录。</translation>
        </message>
        <message>
            <source>Signed in as {account}</source>
            <translation>已登录为 {account}</translation>
        </message>
        <message>
            <source>Signed in as an unnamed account</source>
            <translation>已登录（账号未命名）</translation>
        </message>
        <message>
            <source>Starting the sign-in…</source>
            <translation>正在开始登录…</translation>
        </message>
        <message>
            <source>Sign-in cancelled. Nothing was stored.</source>
            <translation>登录已取消。未保存任何内容。</translation>
        </message>
        <message>
            <source>{error} Nothing was stored.</source>
            <translation>{error} 未保存任何内容。</translation>
        </message>
        <message>
            <source>Signed in, but the sign-in could not be kept: {error}</source>
            <translation>已登录，但无法保存登录信息：{error}</translation>
        </message>
        <message>
            <source>Signed in to {provider}. The sign-in is in the OS keyring.</source>
            <translation>已登录 {provider}。登录信息保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>Waiting for you to enter the code…</source>
            <translation>正在等待你输入代码…</translation>
        </message>
        <message>
            <source>Open {url} and enter this code (it works for {minutes} minutes):</source>
            <translation>打开 {url} 并输入以下代码（{minutes} 分钟内有效）：</translation>
        </message>
        <message>
            <source>Waiting for the browser…</source>
            <translation>正在等待浏览器…</translation>
        </message>
        <message>
            <source>Finish signing in in your browser; this page updates by itself. If no browser opened, click Open browser.</source>
            <translation>请在浏览器中完成登录，此页面会自动更新。如果浏览器没有打开，请点击“打开浏览器”。</translation>
        </message>
        <message>
            <source>Code copied.</source>
            <translation>代码已复制。</translation>
        </message>
        <message>
            <source>No browser could be opened; open {url} yourself.</source>
            <translation>无法打开浏览器，请自行打开 {url}。</translation>
        </message>
        <message>
            <source>Not signed out: {error}</source>
            <translation>未退出登录：{error}</translation>
        </message>
        <message>
            <source>Signed out of {provider}.</source>
            <translation>已退出 {provider} 登录。</translation>
        </message>
        <message>
            <source>Nobody was signed in to {provider}.</source>
            <translation>{provider} 当前没有登录的账号。</translation>
        </message>
        <message>
            <source>A skill teaches the assistant a workflow. It starts from the skill-creator template; you edit it next. The assistant reads it when the description matches the task.</source>
            <translation>技能用来教助手一套工作流程。它从 skill-creator 模板开始，接下来由你编辑。当描述与任务相符时，助手会读取它。</translation>
        </message>
        <message>
            <source>New skill</source>
            <translation>新建技能</translation>
        </message>
        <message>
            <source>e.g. pdf-tables</source>
            <translation>例如 pdf-tables</translation>
        </message>
        <message>
            <source>Skill name</source>
            <translation>技能名称</translation>
        </message>
        <message>
            <source>What it does and when to use it, in one line</source>
            <translation>用一句话说明它做什么、何时使用</translation>
        </message>
        <message>
            <source>Skill description</source>
            <translation>技能描述</translation>
        </message>
        <message>
            <source>Problem with the input</source>
            <translation>输入有问题</translation>
        </message>
        <message>
            <source>Create</source>
            <translation>创建</translation>
        </message>
        <message>
            <source>Create skill</source>
            <translation>创建技能</translation>
        </message>
        <message>
            <source>Folder name</source>
            <translation>文件夹名</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>描述</translation>
        </message>
        <message>
            <source>Give the skill a folder name.</source>
            <translation>请为技能指定文件夹名。</translation>
        </message>
        <message>
            <source>A workspace skill called {name} already exists; edit it instead.</source>
            <translation>工作区中已有名为 {name} 的技能；请直接编辑它。</translation>
        </message>
        <message>
            <source>Add a one-line description: it decides when the assistant uses the skill.</source>
            <translation>请添加一句话描述：它决定助手何时使用该技能。</translation>
        </message>
        <message>
            <source>There is a builtin skill called {name}; yours will replace it.</source>
            <translation>已有名为 {name} 的内置技能；你的技能将替换它。</translation>
        </message>
        <message>
            <source>Folder name: lowercase letters, digits and hyphens.</source>
            <translation>文件夹名：小写字母、数字和连字符。</translation>
        </message>
        <message>
            <source>The block between the --- lines is the frontmatter: &lt;b&gt;name&lt;/b&gt; (the folder name) and &lt;b&gt;description&lt;/b&gt; are required; &lt;b&gt;always&lt;/b&gt; and &lt;b&gt;metadata&lt;/b&gt; (&lt;code&gt;{"nanobot": {"requires": {"bins": […], "env": […]}}}&lt;/code&gt;) are optional. Saving checks it first.</source>
            <translation>两条 --- 之间的部分是前置元数据（frontmatter）：&lt;b&gt;name&lt;/b&gt;（文件夹名）和 &lt;b&gt;description&lt;/b&gt; 为必填；&lt;b&gt;always&lt;/b&gt; 和 &lt;b&gt;metadata&lt;/b&gt;（&lt;code&gt;{"nanobot": {"requires": {"bins": […], "env": […]}}}&lt;/code&gt;）为可选。保存前会先检查它。</translation>
        </message>
        <message>
            <source>File being edited</source>
            <translation>正在编辑的文件</translation>
        </message>
        <message>
            <source>Save skill</source>
            <translation>保存技能</translation>
        </message>
        <message>
            <source>Check the frontmatter and save (Ctrl+S)</source>
            <translation>检查前置元数据并保存（Ctrl+S）</translation>
        </message>
        <message>
            <source>Close the editor</source>
            <translation>关闭编辑器</translation>
        </message>
        <message>
            <source>SKILL.md text</source>
            <translation>SKILL.md 文本</translation>
        </message>
        <message>
            <source>&lt;b&gt;Editing&lt;/b&gt; {file}</source>
            <translation>&lt;b&gt;正在编辑&lt;/b&gt; {file}</translation>
        </message>
        <message>
            <source>{file} changed on disk since you opened it (perhaps by Dream). Saving replaces that version.</source>
            <translation>{file} 在你打开后已在磁盘上被更改（可能是梦境整理）。保存会替换那个版本。</translation>
        </message>
        <message>
            <source>Not saved: {error}. Your text is still here; fix the frontmatter and save again.</source>
            <translation>未保存：{error}。你的文字仍在这里；请修正前置元数据后再次保存。</translation>
        </message>
        <message>
            <source>Not saved: {error}. Your text is still here.</source>
            <translation>未保存：{error}。你的文字仍在这里。</translation>
        </message>
        <message>
            <source>Saved. The assistant uses the new version from its next message.</source>
            <translation>已保存。助手从下一条消息起使用新版本。</translation>
        </message>
        <message>
            <source>Discard changes?</source>
            <translation>放弃更改？</translation>
        </message>
        <message>
            <source>This skill has unsaved changes. Discard them?</source>
            <translation>此技能有未保存的更改。要放弃吗？</translation>
        </message>
        <message>
            <source>A workspace skill called {name} already exists.</source>
            <translation>已存在名为 {name} 的工作区技能。</translation>
        </message>
        <message>
            <source>Say in one line what the skill does and when to use it.</source>
            <translation>请用一句话说明该技能做什么、何时使用。</translation>
        </message>
        <message>
            <source>There is no workspace skill called {name}.</source>
            <translation>没有名为 {name} 的工作区技能。</translation>
        </message>
        <message>
            <source>A workspace skill called {name} exists again; not restored.</source>
            <translation>名为 {name} 的工作区技能又已存在，未恢复。</translation>
        </message>
        <message>
            <source>{folder} is gone; nothing to restore.</source>
            <translation>{folder} 已不存在，无可恢复。</translation>
        </message>
        <message>
            <source>builtin</source>
            <extracomment>A skill's source, as its badge and description say it.</extracomment>
            <translation>内置</translation>
        </message>
        <message>
            <source>workspace</source>
            <translation>工作区</translation>
        </message>
        <message>
            <source>binary: {name}</source>
            <extracomment>What a skill needs, by the core's kind (``binary: gh``, ``env: TOKEN``).</extracomment>
            <translation>程序：{name}</translation>
        </message>
        <message>
            <source>env: {name}</source>
            <translation>环境变量：{name}</translation>
        </message>
        <message>
            <source>✕ Not usable: {reason}</source>
            <translation>✕ 无法使用：{reason}</translation>
        </message>
        <message>
            <source>⚠ Unavailable, missing {items}</source>
            <translation>⚠ 不可用，缺少 {items}</translation>
        </message>
        <message>
            <source>Replaced by the workspace skill of the same name</source>
            <translation>已被工作区中的同名技能替换</translation>
        </message>
        <message>
            <source>always on</source>
            <translation>始终启用</translation>
        </message>
        <message>
            <source>workspace skill</source>
            <translation>工作区技能</translation>
        </message>
        <message>
            <source>builtin skill</source>
            <translation>内置技能</translation>
        </message>
        <message>
            <source>available</source>
            <translation>可用</translation>
        </message>
        <message>
            <source>Skills</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>Builtin skills are read-only. Copy it to the workspace to change it; the copy then replaces the builtin.</source>
            <translation>内置技能是只读的。复制到工作区后即可修改；副本将替换内置技能。</translation>
        </message>
        <message>
            <source>the program &lt;b&gt;{name}&lt;/b&gt; is not installed (not on PATH)</source>
            <translation>未安装程序 &lt;b&gt;{name}&lt;/b&gt;（不在 PATH 中）</translation>
        </message>
        <message>
            <source>the environment variable &lt;b&gt;{name}&lt;/b&gt; is not set</source>
            <translation>未设置环境变量 &lt;b&gt;{name}&lt;/b&gt;</translation>
        </message>
        <message>
            <source>Skill facts</source>
            <translation>技能信息</translation>
        </message>
        <message>
            <source>Availability</source>
            <translation>可用性</translation>
        </message>
        <message>
            <source>SKILL.md location</source>
            <translation>SKILL.md 位置</translation>
        </message>
        <message>
            <source>Edit</source>
            <translation>编辑</translation>
        </message>
        <message>
            <source>Edit skill</source>
            <translation>编辑技能</translation>
        </message>
        <message>
            <source>Copy to workspace</source>
            <translation>复制到工作区</translation>
        </message>
        <message>
            <source>Copy builtin skill to the workspace</source>
            <translation>将内置技能复制到工作区</translation>
        </message>
        <message>
            <source>Make an editable copy in the workspace; it replaces the builtin</source>
            <translation>在工作区中创建可编辑的副本；它将替换内置技能</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>删除…</translation>
        </message>
        <message>
            <source>Delete skill</source>
            <translation>删除技能</translation>
        </message>
        <message>
            <source>SKILL.md rendered</source>
            <translation>SKILL.md 渲染结果</translation>
        </message>
        <message>
            <source>No skill selected</source>
            <translation>未选择技能</translation>
        </message>
        <message>
            <source>Select a skill on the left to read it.</source>
            <translation>在左侧选择一个技能以查看。</translation>
        </message>
        <message>
            <source>Workspace skill</source>
            <translation>工作区技能</translation>
        </message>
        <message>
            <source>Builtin skill (read-only)</source>
            <translation>内置技能（只读）</translation>
        </message>
        <message>
            <source>always on: its whole text is in every prompt</source>
            <translation>始终启用：其全文包含在每次提示中</translation>
        </message>
        <message>
            <source>loaded when needed</source>
            <translation>需要时加载</translation>
        </message>
        <message>
            <source>replaced by the workspace skill of the same name</source>
            <translation>已被工作区中的同名技能替换</translation>
        </message>
        <message>
            <source>Edit SKILL.md</source>
            <translation>编辑 SKILL.md</translation>
        </message>
        <message>
            <source>&lt;b&gt;Not usable&lt;/b&gt; — {reason}. The assistant skips this skill until it is fixed.</source>
            <translation>&lt;b&gt;无法使用&lt;/b&gt; — {reason}。修复之前助手会跳过此技能。</translation>
        </message>
        <message>
            <source>&lt;b&gt;Unavailable&lt;/b&gt; — {missing}. The assistant sees the skill but is told it cannot use it yet.</source>
            <translation>&lt;b&gt;不可用&lt;/b&gt; — {missing}。助手能看到此技能，但会被告知暂时无法使用。</translation>
        </message>
        <message>
            <source>&lt;b&gt;Available&lt;/b&gt; — everything it needs is here.</source>
            <translation>&lt;b&gt;可用&lt;/b&gt; — 所需的一切都已就绪。</translation>
        </message>
        <message>
            <source>Needs: {items}.</source>
            <translation>需要：{items}。</translation>
        </message>
        <message>
            <source>(could not read {path}: {error})</source>
            <translation>（无法读取 {path}：{error}）</translation>
        </message>
        <message>
            <source>Search skills</source>
            <translation>搜索技能</translation>
        </message>
        <message>
            <source>Skills summary</source>
            <translation>技能概要</translation>
        </message>
        <message>
            <source>New skill…</source>
            <translation>新建技能…</translation>
        </message>
        <message>
            <source>Refresh skills</source>
            <translation>刷新技能</translation>
        </message>
        <message>
            <source>Read the skill folders again (availability too)</source>
            <translation>重新读取技能文件夹（包括可用性）</translation>
        </message>
        <message>
            <source>The skill was not created: {error}</source>
            <translation>未能创建技能：{error}</translation>
        </message>
        <message>
            <source>Created {name}. Describe the steps in the editor and save.</source>
            <translation>已创建 {name}。请在编辑器中描述步骤并保存。</translation>
        </message>
        <message>
            <source>Delete skill?</source>
            <translation>删除技能？</translation>
        </message>
        <message>
            <source>Delete the workspace skill “{name}”?</source>
            <translation>删除工作区技能“{name}”？</translation>
        </message>
        <message>
            <source>Its folder is moved to skills/.deleted/ (not destroyed), and you can undo right after.</source>
            <translation>其文件夹会移到 skills/.deleted/（不会被销毁），之后可以立即撤销。</translation>
        </message>
        <message>
            <source>{name} was not deleted: {error}</source>
            <translation>未能删除 {name}：{error}</translation>
        </message>
        <message>
            <source>Deleted {name}. Its folder was moved to {folder}.</source>
            <translation>已删除 {name}。其文件夹已移到 {folder}。</translation>
        </message>
        <message>
            <source>{name} was not restored: {error}</source>
            <translation>未能恢复 {name}：{error}</translation>
        </message>
        <message>
            <source>Restored {name}.</source>
            <translation>已恢复 {name}。</translation>
        </message>
        <message>
            <source>{count} builtin</source>
            <translation>内置 {count} 个</translation>
        </message>
        <message>
            <source>{count} in the workspace</source>
            <translation>工作区 {count} 个</translation>
        </message>
        <message>
            <source>{count} not usable here</source>
            <translation>在此不可用 {count} 个</translation>
        </message>
        <message>
            <source>Builtin skills are read-only. Copy it to the workspace to change it.</source>
            <translation>内置技能是只读的。复制到工作区后即可修改。</translation>
        </message>
        <message>
            <source>Cannot open {path}: {error}</source>
            <translation>无法打开 {path}：{error}</translation>
        </message>
        <message>
            <source>{name} was not copied: {error}</source>
            <translation>未能复制 {name}：{error}</translation>
        </message>
        <message>
            <source>Copied {name} to the workspace; the copy replaces the builtin.</source>
            <translation>已将 {name} 复制到工作区；副本将替换内置技能。</translation>
        </message>
        <message>
            <source>Edit it</source>
            <translation>编辑它</translation>
        </message>
        <message>
            <source>Some settings need the agent to reconnect (running answers will stop).</source>
            <translation>部分设置需要智能体重新连接（正在进行的回答会停止）。</translation>
        </message>
        <message>
            <source>Apply now</source>
            <translation>立即应用</translation>
        </message>
        <message>
            <source>The new model settings cannot be used yet: {error}</source>
            <translation>新的模型设置暂时无法使用：{error}</translation>
        </message>
        <message>
            <source>nanobot Desktop is not set up yet: it needs a model provider (and usually a key) before it can answer.</source>
            <translation>nanobot Desktop 尚未设置：它需要一个模型服务商（通常还需要密钥）才能回答。</translation>
        </message>
        <message>
            <source>Welcome to nanobot Desktop</source>
            <translation>欢迎使用 nanobot Desktop</translation>
        </message>
        <message>
            <source>Set up now</source>
            <translation>立即设置</translation>
        </message>
        <message>
            <source>No API key for {provider}. Store one with '{command}'.</source>
            <translation>没有 {provider} 的 API 密钥。请用“{command}”保存一个。</translation>
        </message>
        <message>
            <source>No API key for {provider}. Store one with '{command}' or set {env}.</source>
            <translation>没有 {provider} 的 API 密钥。请用“{command}”保存一个，或设置 {env}。</translation>
        </message>
        <message>
            <source>Not signed in to {provider}. Sign in under Settings → Providers, or run '{command}'.</source>
            <translation>尚未登录 {provider}。请在“设置 → 服务商”中登录，或运行“{command}”。</translation>
        </message>
        <message>
            <source>cannot read the keyring: {error}</source>
            <translation>无法读取密钥环：{error}</translation>
        </message>
        <message>
            <source>not signed in</source>
            <translation>未登录</translation>
        </message>
        <message>
            <source>{account} (OS keyring {entry})</source>
            <translation>{account}（系统密钥环 {entry}）</translation>
        </message>
        <message>
            <source>{model} cannot be used: {reason}</source>
            <translation>{model} 无法使用：{reason}</translation>
        </message>
        <message>
            <source>unknown provider {name} in agents.defaults.provider (known: {known})</source>
            <translation>agents.defaults.provider 中的服务商 {name} 未知（已知的有：{known}）</translation>
        </message>
        <message>
            <source>{provider} only transcribes voice messages; choose a chat provider in agents.defaults.provider</source>
            <translation>{provider} 只能转写语音消息；请在 agents.defaults.provider 中选择一个聊天服务商</translation>
        </message>
        <message>
            <source>no provider for model {model}: add a key (nanobot-desktop keys set PROVIDER) or set providers.custom.apiBase to an OpenAI-compatible server</source>
            <translation>没有适用于模型 {model} 的服务商：请添加密钥（nanobot-desktop keys set PROVIDER），或把 providers.custom.apiBase 设为兼容 OpenAI 的服务器</translation>
        </message>
        <message>
            <source>Enter a model name to test with.</source>
            <translation>请输入用于测试的模型名称。</translation>
        </message>
        <message>
            <source>No API key for {provider}: enter one first.</source>
            <translation>没有 {provider} 的 API 密钥：请先输入一个。</translation>
        </message>
        <message>
            <source>Connected: {model} answered in {seconds} s.</source>
            <translation>已连接：{model} 在 {seconds} 秒内作答。</translation>
        </message>
        <message>
            <source>{provider} does not offer a model list here; type the model name.</source>
            <translation>{provider} 在此处不提供模型列表；请输入模型名称。</translation>
        </message>
        <message>
            <source>1 model available.</source>
            <translation>有 1 个可用模型。</translation>
        </message>
        <message>
            <source>{count} models available.</source>
            <translation>有 {count} 个可用模型。</translation>
        </message>
        <message>
            <source>Unknown provider {name}.</source>
            <translation>未知的服务商 {name}。</translation>
        </message>
        <message>
            <source>HTTP {status}: {message}</source>
            <translation>HTTP {status}：{message}</translation>
        </message>
        <message>
            <source>No answer from {url} within {seconds} s.</source>
            <translation>{url} 在 {seconds} 秒内没有应答。</translation>
        </message>
        <message>
            <source>Cannot reach {url}: {error}</source>
            <translation>无法连接 {url}：{error}</translation>
        </message>
        <message>
            <source>HTTP {status} from {url}: {error}</source>
            <translation>{url} 返回 HTTP {status}：{error}</translation>
        </message>
        <message>
            <source>{url} did not answer with JSON.</source>
            <translation>{url} 返回的不是 JSON。</translation>
        </message>
        <message>
            <source>{url} listed no models.</source>
            <translation>{url} 没有列出任何模型。</translation>
        </message>
        <message>
            <source>nanobot Desktop — unexpected error</source>
            <translation>nanobot Desktop — 意外错误</translation>
        </message>
        <message>
            <source>&lt;b&gt;Something went wrong.&lt;/b&gt; nanobot keeps running; your conversations are saved.</source>
            <translation>&lt;b&gt;出了点问题。&lt;/b&gt;nanobot 仍在运行；你的对话都已保存。</translation>
        </message>
        <message>
            <source>Error summary</source>
            <translation>错误摘要</translation>
        </message>
        <message>
            <source>Details were written to {path}.</source>
            <translation>详细信息已写入 {path}。</translation>
        </message>
        <message>
            <source>Copy details</source>
            <translation>复制详情</translation>
        </message>
        <message>
            <source>Open log folder</source>
            <translation>打开日志文件夹</translation>
        </message>
        <message>
            <source>(+1 more error since)</source>
            <translation>（此后又出现 1 个错误）</translation>
        </message>
        <message>
            <source>(+{count} more errors since)</source>
            <translation>（此后又出现 {count} 个错误）</translation>
        </message>
        <message>
            <source>Snooze 10 min</source>
            <extracomment>Answers offered on a scheduled reminder: action key -&gt; (answer, label). The answer is a :data:`desktop.core.cron.snooze.SnoozeChoice` or ``done``. Labels marked; shown through tr().</extracomment>
            <translation>10 分钟后提醒</translation>
        </message>
        <message>
            <source>Snooze 1 h</source>
            <translation>1 小时后提醒</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>完成</translation>
        </message>
        <message>
            <source>Reminder: {name}</source>
            <translation>提醒：{name}</translation>
        </message>
        <message>
            <source>(no text)</source>
            <translation>（无内容）</translation>
        </message>
        <message>
            <source>Reminder — {name}: {text}</source>
            <translation>提醒 — {name}：{text}</translation>
        </message>
        <message>
            <source>Choose a workspace</source>
            <translation>选择工作区</translation>
        </message>
        <message>
            <source>The workspace holds your chats, the assistant's memory, skills and reminders. Keep the default, or open the workspace of an existing nanobot installation to continue with it. Missing starter files are added; your own files are never overwritten.</source>
            <translation>工作区存放你的聊天、助手的记忆、技能和提醒。可以保留默认位置，也可以打开已有 nanobot 安装的工作区继续使用。缺少的初始文件会被补上；你自己的文件绝不会被覆盖。</translation>
        </message>
        <message>
            <source>Choose a folder.</source>
            <translation>请选择一个文件夹。</translation>
        </message>
        <message>
            <source>{title} (not loaded yet)</source>
            <translation>{title}（尚未加载）</translation>
        </message>
        <message>
            <source>Commands are refused: tools.exec.sandbox requires the sandbox, but {reason}.</source>
            <translation>命令被拒绝：tools.exec.sandbox 要求使用沙箱，但 {reason}。</translation>
        </message>
        <message>
            <source>Commands run without the sandbox: {reason}. Until then, only the safety rules (and your approvals) protect your files.</source>
            <translation>命令在沙箱外运行：{reason}。在此之前，只有安全规则（和你的审批）在保护你的文件。</translation>
        </message>
        <message>
            <source>A message for {channel} chat {chat} could not be delivered (“{preview}”): {reason}.</source>
            <translation>发往 {channel} 聊天 {chat} 的消息未能送达（“{preview}”）：{reason}。</translation>
        </message>
        <message>
            <source>A message for {channel} chat {chat} could not be delivered: {reason}.</source>
            <translation>发往 {channel} 聊天 {chat} 的消息未能送达：{reason}。</translation>
        </message>
        <message>
            <source>Channel settings</source>
            <translation>渠道设置</translation>
        </message>
        <message>
            <source>Open folder</source>
            <translation>打开文件夹</translation>
        </message>
        <message>
            <source>Open Settings</source>
            <translation>打开设置</translation>
        </message>
        <message>
            <source>loading settings…</source>
            <translation>正在加载设置…</translation>
        </message>
        <message>
            <source>Your settings file cannot be used: {error}. It was not changed; fix it and retry.</source>
            <translation>你的设置文件无法使用：{error}。文件未被改动；请修正后重试。</translation>
        </message>
        <message>
            <source>settings file has a problem</source>
            <translation>设置文件有问题</translation>
        </message>
        <message>
            <source>settings not loaded</source>
            <translation>设置未加载</translation>
        </message>
        <message>
            <source>Loading the settings failed: {error}</source>
            <translation>加载设置失败：{error}</translation>
        </message>
        <message>
            <source>The agent could not start: {error}</source>
            <translation>智能体无法启动：{error}</translation>
        </message>
        <message>
            <source>not connected</source>
            <translation>未连接</translation>
        </message>
        <message>
            <source>tomorrow {time}</source>
            <translation>明天 {time}</translation>
        </message>
        <message>
            <source>{weekday} {day} {month} {time}</source>
            <translation>{month}{day}日 {weekday} {time}</translation>
        </message>
        <message>
            <source>nanobot tray menu</source>
            <translation>nanobot 托盘菜单</translation>
        </message>
        <message>
            <source>not linked yet — scan the QR code in Settings → Channels</source>
            <translation>尚未关联 — 请在“设置 → 渠道”中扫描二维码</translation>
        </message>
        <message>
            <source>disconnected — {reason}</source>
            <translation>已断开 — {reason}</translation>
        </message>
        <message>
            <source>disconnected</source>
            <translation>已断开</translation>
        </message>
        <message>
            <source>unavailable — {reason}</source>
            <translation>不可用 — {reason}</translation>
        </message>
        <message>
            <source>unavailable</source>
            <translation>不可用</translation>
        </message>
        <message>
            <source>nanobot — 1 tool call waiting for your approval</source>
            <translation>nanobot — 1 个工具调用等待你的审批</translation>
        </message>
        <message>
            <source>nanobot — {count} tool calls waiting for your approval</source>
            <translation>nanobot — {count} 个工具调用等待你的审批</translation>
        </message>
        <message>
            <source>nanobot — 1 unread reminder</source>
            <translation>nanobot — 1 条未读提醒</translation>
        </message>
        <message>
            <source>nanobot — {count} unread reminders</source>
            <translation>nanobot — {count} 条未读提醒</translation>
        </message>
        <message>
            <source>nanobot — {channel}: {problem}</source>
            <translation>nanobot — {channel}：{problem}</translation>
        </message>
        <message>
            <source>nanobot — Dream proposes 1 change to review</source>
            <translation>nanobot — 梦境整理提出了 1 项待审阅的更改</translation>
        </message>
        <message>
            <source>nanobot — Dream proposes {count} changes to review</source>
            <translation>nanobot — 梦境整理提出了 {count} 项待审阅的更改</translation>
        </message>
        <message>
            <source>nanobot — working…</source>
            <translation>nanobot — 正在工作…</translation>
        </message>
        <message>
            <source>1 chat channel disconnected</source>
            <translation>1 个聊天渠道已断开</translation>
        </message>
        <message>
            <source>{count} chat channels disconnected</source>
            <translation>{count} 个聊天渠道已断开</translation>
        </message>
        <message>
            <source>(and 1 more channel)</source>
            <translation>（另有 1 个渠道）</translation>
        </message>
        <message>
            <source>(and {count} more channels)</source>
            <translation>（另有 {count} 个渠道）</translation>
        </message>
        <message>
            <source>Show nanobot</source>
            <translation>显示 nanobot</translation>
        </message>
        <message>
            <source>Review Dream changes</source>
            <translation>审阅梦境整理的更改</translation>
        </message>
        <message>
            <source>Approve {who} ({code})</source>
            <translation>批准 {who}（{code}）</translation>
        </message>
        <message>
            <source>Deny {who} ({code})</source>
            <translation>拒绝 {who}（{code}）</translation>
        </message>
        <message>
            <source>Upcoming reminders</source>
            <translation>即将到来的提醒</translation>
        </message>
        <message>
            <source>No upcoming reminders</source>
            <translation>没有即将到来的提醒</translation>
        </message>
        <message>
            <source>Pause reminders</source>
            <translation>暂停提醒</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>退出</translation>
        </message>
        <message>
            <source>{path}: {reason}</source>
            <translation>{path}：{reason}</translation>
        </message>
        <message>
            <source>Input should be greater than or equal to {ge}</source>
            <translation>输入值应大于或等于 {ge}</translation>
        </message>
        <message>
            <source>Input should be less than or equal to {le}</source>
            <translation>输入值应小于或等于 {le}</translation>
        </message>
        <message>
            <source>Input should be greater than {gt}</source>
            <translation>输入值应大于 {gt}</translation>
        </message>
        <message>
            <source>Input should be less than {lt}</source>
            <translation>输入值应小于 {lt}</translation>
        </message>
        <message>
            <source>String should have at least {min_length} characters</source>
            <translation>文本至少应有 {min_length} 个字符</translation>
        </message>
        <message>
            <source>Input should be a valid integer, unable to parse string as an integer</source>
            <translation>输入值应为有效的整数，无法将文本解析为整数</translation>
        </message>
        <message>
            <source>Input should be a valid integer, got a number with a fractional part</source>
            <translation>输入值应为有效的整数，但得到的是带小数部分的数</translation>
        </message>
        <message>
            <source>Input should be {expected}</source>
            <translation>输入值应为 {expected}</translation>
        </message>
        <message>
            <source>{path}, line {line}: {reason}</source>
            <translation>{path} 第 {line} 行：{reason}</translation>
        </message>
        <message>
            <source>{path}: field '{field}': {reason}</source>
            <translation>{path}：字段“{field}”：{reason}</translation>
        </message>
        <message>
            <source>{path}, line {line}: field '{field}': {reason}</source>
            <translation>{path} 第 {line} 行：字段“{field}”：{reason}</translation>
        </message>
        <message>
            <source>the top level must be a JSON object</source>
            <translation>顶层必须是 JSON 对象</translation>
        </message>
        <message>
            <source>{problem} (a safety setting: fix it, no default is assumed)</source>
            <translation>{problem}（这是安全设置：请修正，不会采用默认值）</translation>
        </message>
        <message>
            <source>the environment override {name} does not fit: {problem}</source>
            <translation>环境变量覆盖 {name} 不合适：{problem}</translation>
        </message>
        <message>
            <source>the workspace {workspace} is a file, not a folder; choose a folder</source>
            <translation>工作区 {workspace} 是文件而不是文件夹；请选择一个文件夹</translation>
        </message>
        <message>
            <source>the workspace {workspace} lies inside {file}, which is a file, not a folder; choose a folder</source>
            <translation>工作区 {workspace} 位于 {file} 之内，而它是文件不是文件夹；请选择一个文件夹</translation>
        </message>
        <message>
            <source>no copy could be made ({error})</source>
            <translation>无法另存副本（{error}）</translation>
        </message>
        <message>
            <source>it was kept as {name}</source>
            <translation>原文件已保留为 {name}</translation>
        </message>
        <message>
            <source>The desktop settings file {path} could not be used ({reason}); {kept} and the defaults are in use.</source>
            <translation>桌面设置文件 {path} 无法使用（{reason}）；{kept}，现使用默认设置。</translation>
        </message>
        <message>
            <source>it was moved to {name}</source>
            <translation>已移至 {name}</translation>
        </message>
        <message>
            <source>it could not be moved aside ({error})</source>
            <translation>无法将它移到一旁（{error}）</translation>
        </message>
        <message>
            <source>The desktop settings file {path} {problem}; {moved} and the defaults are in use.</source>
            <translation>桌面设置文件 {path} {problem}；{moved}，现使用默认设置。</translation>
        </message>
        <message>
            <source>The desktop settings file {path} {problem}.</source>
            <translation>桌面设置文件 {path} {problem}。</translation>
        </message>
        <message>
            <source>The desktop settings file {path} cannot be read ({error}).</source>
            <translation>无法读取桌面设置文件 {path}（{error}）。</translation>
        </message>
        <message>
            <source>the top level is not a JSON object</source>
            <translation>顶层不是 JSON 对象</translation>
        </message>
        <message>
            <source>The desktop settings file {path} had values that could not be used ({problems}); {kept}, defaults replace those values and the other settings are kept.</source>
            <translation>桌面设置文件 {path} 中有无法使用的值（{problems}）；{kept}，这些值改用默认值，其他设置保持不变。</translation>
        </message>
        <message>
            <source>unknown timezone {name} (use an IANA name like 'Europe/Berlin')</source>
            <translation>未知时区 {name}（请使用 IANA 名称，如“Asia/Shanghai”）</translation>
        </message>
        <message>
            <source>The key can instead come from the environment variable {env}, or an {reference} reference in config.json.</source>
            <translation>密钥也可以来自环境变量 {env}，或 config.json 中的 {reference} 引用。</translation>
        </message>
        <message>
            <source>The key can instead come from an environment variable named by an {reference} reference in config.json.</source>
            <translation>密钥也可以来自 config.json 中 {reference} 引用所指定的环境变量。</translation>
        </message>
        <message>
            <source>The key can instead come from the provider's environment variable (e.g. OPENAI_API_KEY), or an {reference} reference in config.json.</source>
            <translation>密钥也可以来自服务商的环境变量（如 OPENAI_API_KEY），或 config.json 中的 {reference} 引用。</translation>
        </message>
        <message>
            <source>No usable OS keyring on this system ({detail}). {alternatives}</source>
            <translation>此系统上没有可用的系统密钥环（{detail}）。{alternatives}</translation>
        </message>
        <message>
            <source>The OS keyring did not answer within {seconds} s (is the wallet locked?). {alternatives}</source>
            <translation>系统密钥环在 {seconds} 秒内没有响应（钱包是否已锁定？）。{alternatives}</translation>
        </message>
        <message>
            <source>held for this session</source>
            <translation>仅在本次运行期间保存</translation>
        </message>
        <message>
            <source>keyring {entry}</source>
            <translation>密钥环 {entry}</translation>
        </message>
        <message>
            <source>config.json (plaintext; run 'keys migrate')</source>
            <translation>config.json（明文；请运行“keys migrate”）</translation>
        </message>
        <message>
            <source>environment variable {variable}</source>
            <translation>环境变量 {variable}</translation>
        </message>
        <message>
            <source>AWS Bedrock: cannot use the AWS credentials ({error}).</source>
            <translation>AWS Bedrock：无法使用 AWS 凭据（{error}）。</translation>
        </message>
        <message>
            <source>the profile {profile}</source>
            <translation>配置档 {profile}</translation>
        </message>
        <message>
            <source>the environment or ~/.aws</source>
            <translation>环境变量或 ~/.aws</translation>
        </message>
        <message>
            <source>AWS Bedrock: no credentials. Store an Amazon Bedrock API key for bedrock, or provide AWS credentials ({where}).</source>
            <translation>AWS Bedrock：没有凭据。请为 bedrock 保存一个 Amazon Bedrock API 密钥，或提供 AWS 凭据（{where}）。</translation>
        </message>
        <message>
            <source>This chat's model {model} cannot be used: {reason} Pick another model in the chat's header.</source>
            <translation>此聊天的模型 {model} 无法使用：{reason} 请在聊天顶部选择其他模型。</translation>
        </message>
        <message>
            <source>{failed} did not answer ({reason}); {target} answers instead.</source>
            <translation>{failed} 没有应答（{reason}）；改由 {target} 回答。</translation>
        </message>
        <message>
            <source>The provider returned no choices</source>
            <translation>服务商没有返回任何结果</translation>
        </message>
        <message>
            <source>The provider stream stalled for {seconds} s</source>
            <translation>服务商的流式输出已停滞 {seconds} 秒</translation>
        </message>
        <message>
            <source>The connection to the model ended before the answer was complete.</source>
            <translation>回答尚未完成，与模型的连接就已中断。</translation>
        </message>
        <message>
            <source>an unnamed account</source>
            <translation>一个未命名账号</translation>
        </message>
        <message>
            <source>signed in as {account} (access expired; renewed on the next request)</source>
            <translation>已登录为 {account}（访问已过期；下次请求时自动续期）</translation>
        </message>
        <message>
            <source>signed in as {account}</source>
            <translation>已登录为 {account}</translation>
        </message>
        <message>
            <source>The sign-in server's answer held no access token.</source>
            <translation>登录服务器的应答中没有访问令牌。</translation>
        </message>
        <message>
            <source>Nobody finished signing in within {minutes} minutes. Start the sign-in again.</source>
            <translation>{minutes} 分钟内没有人完成登录。请重新开始登录。</translation>
        </message>
        <message>
            <source>finishing the sign-in</source>
            <translation>完成登录时</translation>
        </message>
        <message>
            <source>The sign-in could not be finished ({error}).</source>
            <translation>无法完成登录（{error}）。</translation>
        </message>
        <message>
            <source>{provider} refused the sign-in even after renewing it. Sign out and sign in again under Settings → Providers.</source>
            <translation>即使续期后，{provider} 仍拒绝了登录。请在“设置 → 服务商”中退出并重新登录。</translation>
        </message>
        <message>
            <source>Signed in, but GitHub could not be asked who you are ({error}).</source>
            <translation>已登录，但无法向 GitHub 查询你的身份（{error}）。</translation>
        </message>
        <message>
            <source>Signed in, but GitHub did not say who you are ({error}).</source>
            <translation>已登录，但 GitHub 没有告知你的身份（{error}）。</translation>
        </message>
        <message>
            <source>Could not reach GitHub to get a Copilot token.</source>
            <translation>无法连接 GitHub 获取 Copilot 令牌。</translation>
        </message>
        <message>
            <source>This GitHub account has no GitHub Copilot access (GitHub said {error}).</source>
            <translation>此 GitHub 账号没有 GitHub Copilot 权限（GitHub 返回：{error}）。</translation>
        </message>
        <message>
            <source>GitHub did not hand out a Copilot token ({error}).</source>
            <translation>GitHub 没有发放 Copilot 令牌（{error}）。</translation>
        </message>
        <message>
            <source>GitHub's Copilot token answer held no token.</source>
            <translation>GitHub 的 Copilot 令牌应答中没有令牌。</translation>
        </message>
        <message>
            <source>starting the sign-in</source>
            <translation>开始登录时</translation>
        </message>
        <message>
            <source>The sign-in could not start ({error}).</source>
            <translation>无法开始登录（{error}）。</translation>
        </message>
        <message>
            <source>The code expired before it was entered. Start the sign-in again.</source>
            <translation>验证码在输入前已过期。请重新开始登录。</translation>
        </message>
        <message>
            <source>waiting for the code</source>
            <translation>等待验证码时</translation>
        </message>
        <message>
            <source>The sign-in was cancelled in the browser.</source>
            <translation>已在浏览器中取消登录。</translation>
        </message>
        <message>
            <source>The sign-in failed ({error}).</source>
            <translation>登录失败（{error}）。</translation>
        </message>
        <message>
            <source>Could not reach {host} ({what}): {error}</source>
            <translation>无法连接 {host}（{what}）：{error}</translation>
        </message>
        <message>
            <source>xAI's sign-in configuration names no {key}.</source>
            <translation>xAI 的登录配置中没有 {key}。</translation>
        </message>
        <message>
            <source>xAI's sign-in configuration names an unexpected {key}; not used.</source>
            <translation>xAI 的登录配置给出了意外的 {key}；未使用。</translation>
        </message>
        <message>
            <source>Could not reach xAI's sign-in ({error}).</source>
            <translation>无法连接 xAI 的登录服务（{error}）。</translation>
        </message>
        <message>
            <source>xAI's sign-in configuration could not be read ({error}).</source>
            <translation>无法读取 xAI 的登录配置（{error}）。</translation>
        </message>
        <message>
            <source>xAI's sign-in configuration names another issuer; not used.</source>
            <translation>xAI 的登录配置指向了其他签发方；未使用。</translation>
        </message>
        <message>
            <source>xAI's sign-in answer held no access token.</source>
            <translation>xAI 的登录应答中没有访问令牌。</translation>
        </message>
        <message>
            <source>Could not reach xAI to finish the sign-in ({error}).</source>
            <translation>无法连接 xAI 完成登录（{error}）。</translation>
        </message>
        <message>
            <source>Port {port} on this computer is in use, so the browser cannot hand the sign-in back (is another sign-in, or the Codex CLI, waiting?). Close it and try again. ({error})</source>
            <translation>本机端口 {port} 已被占用，浏览器无法交回登录结果（是否有另一个登录或 Codex CLI 正在等待？）。请关闭它后重试。（{error}）</translation>
        </message>
        <message>
            <source>ChatGPT usage limit reached: {reason}</source>
            <translation>已达到 ChatGPT 用量上限：{reason}</translation>
        </message>
        <message>
            <source>The model call failed: {reason}</source>
            <translation>模型调用失败：{reason}</translation>
        </message>
        <message>
            <source>Sign in under Settings → Providers, or run '{command}'.</source>
            <translation>请在“设置 → 服务商”中登录，或运行“{command}”。</translation>
        </message>
        <message>
            <source>Not signed in to {provider}. {hint}</source>
            <translation>尚未登录 {provider}。{hint}</translation>
        </message>
        <message>
            <source>Signed out of {provider}: the sign-in expired or was revoked. Sign in again: {hint}</source>
            <translation>已退出 {provider}：登录已过期或被撤销。请重新登录：{hint}</translation>
        </message>
        <message>
            <source>Cannot read the {provider} sign-in from the OS keyring. {error}</source>
            <translation>无法从系统密钥环读取 {provider} 的登录信息。{error}</translation>
        </message>
        <message>
            <source>Could not renew the {provider} sign-in (the server could not be reached); trying again later may help.</source>
            <translation>无法续期 {provider} 的登录（无法连接服务器）；稍后重试也许可以。</translation>
        </message>
        <message>
            <source>Another nanobot Desktop process is renewing the {provider} sign-in and did not finish; try again in a moment.</source>
            <translation>另一个 nanobot Desktop 进程正在续期 {provider} 的登录且尚未完成；请稍后再试。</translation>
        </message>
        <message>
            <source>{label}.</source>
            <translation>{label}。</translation>
        </message>
        <message>
            <source>{label}: {reason}.</source>
            <translation>{label}：{reason}。</translation>
        </message>
        <message>
            <source>{label}: {reason}</source>
            <translation>{label}：{reason}</translation>
        </message>
        <message>
            <source>The provider rejected the API key</source>
            <translation>服务商拒绝了 API 密钥</translation>
        </message>
        <message>
            <source>Rate limited by the provider</source>
            <translation>服务商限制了请求频率</translation>
        </message>
        <message>
            <source>The provider account is out of quota or credit</source>
            <translation>服务商账号的额度或余额已用尽</translation>
        </message>
        <message>
            <source>The provider rejected the request</source>
            <translation>服务商拒绝了请求</translation>
        </message>
        <message>
            <source>Model or endpoint not found</source>
            <translation>找不到模型或端点</translation>
        </message>
        <message>
            <source>The provider had a server error</source>
            <translation>服务商服务器出错</translation>
        </message>
        <message>
            <source>The provider did not answer in time</source>
            <translation>服务商未能及时应答</translation>
        </message>
        <message>
            <source>Could not reach the provider</source>
            <translation>无法连接服务商</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>已取消</translation>
        </message>
        <message>
            <source>The model returned an empty answer</source>
            <translation>模型返回了空回答</translation>
        </message>
        <message>
            <source>Stopped by your own spend budget</source>
            <translation>已因你设置的花费预算而停止</translation>
        </message>
        <message>
            <source>The model call failed</source>
            <translation>模型调用失败</translation>
        </message>
        <message>
            <source>{job} is a system job; change it in its settings page</source>
            <extracomment>How many past receipts the view lists per job (newest first).</extracomment>
            <translation>{job} 是系统任务，请在其设置页面中更改</translation>
        </message>
        <message>
            <source>a reminder needs a message</source>
            <translation>提醒需要填写内容</translation>
        </message>
        <message>
            <source>unknown timezone {zone} (expected an IANA name such as 'Europe/Berlin')</source>
            <translation>未知时区 {zone}（应为 IANA 名称，如“Europe/Berlin”）</translation>
        </message>
        <message>
            <source>unknown schedule kind {kind} (expected at, every or cron)</source>
            <translation>未知的计划类型 {kind}（应为 at、every 或 cron）</translation>
        </message>
        <message>
            <source>a cron schedule needs an expression such as '0 9 * * 1-5'</source>
            <translation>cron 计划需要一个表达式，如“0 9 * * 1-5”</translation>
        </message>
        <message>
            <source>cron expression {expr} must have 5 fields (minute hour day month weekday), got {count}</source>
            <translation>cron 表达式 {expr} 必须有 5 个字段（分 时 日 月 星期），实际为 {count} 个</translation>
        </message>
        <message>
            <source>invalid cron expression {expr}</source>
            <translation>无效的 cron 表达式 {expr}</translation>
        </message>
        <message>
            <source>an 'at' schedule needs a time</source>
            <translation>“at”计划需要一个时间</translation>
        </message>
        <message>
            <source>an 'every' schedule needs a positive interval</source>
            <translation>“every”计划需要一个正的间隔</translation>
        </message>
        <message>
            <source>'every' interval must be greater than 0 ms, got {value}</source>
            <translation>“every”间隔必须大于 0 毫秒，收到的是 {value}</translation>
        </message>
        <message>
            <source>a job with id {job} already exists</source>
            <translation>ID 为 {job} 的任务已存在</translation>
        </message>
        <message>
            <source>{job} is a system job and cannot be removed; disable it in the settings instead</source>
            <translation>{job} 是系统任务，不能删除；请改为在设置中停用它</translation>
        </message>
        <message>
            <source>no job with id {job}</source>
            <translation>没有 ID 为 {job} 的任务</translation>
        </message>
        <message>
            <source>job {job} is already running</source>
            <translation>任务 {job} 已在运行</translation>
        </message>
        <message>
            <source>the path is empty</source>
            <translation>路径为空</translation>
        </message>
        <message>
            <source>the path is longer than {count} characters</source>
            <translation>路径超过 {count} 个字符</translation>
        </message>
        <message>
            <source>it is an absolute path</source>
            <translation>这是绝对路径</translation>
        </message>
        <message>
            <source>its characters are not in the one canonical (NFC) spelling</source>
            <translation>其字符不是唯一的规范（NFC）写法</translation>
        </message>
        <message>
            <source>it contains the character {code}</source>
            <translation>其中包含字符 {code}</translation>
        </message>
        <message>
            <source>it has an empty, '.' or '..' component</source>
            <translation>其中有空的、“.”或“..”路径段</translation>
        </message>
        <message>
            <source>its component {name} is hidden (starts with '.')</source>
            <translation>其路径段 {name} 是隐藏的（以“.”开头）</translation>
        </message>
        <message>
            <source>its component {name} ends with a space or a dot</source>
            <translation>其路径段 {name} 以空格或点结尾</translation>
        </message>
        <message>
            <source>a component is longer than {count} characters</source>
            <translation>有路径段超过 {count} 个字符</translation>
        </message>
        <message>
            <source>Dream may only change SOUL.md, USER.md, memory/MEMORY.md and files of workspace skills (skills/&lt;name&gt;/…)</source>
            <translation>梦境整理只能修改 SOUL.md、USER.md、memory/MEMORY.md 和工作区技能的文件（skills/&lt;name&gt;/…）</translation>
        </message>
        <message>
            <source>another git program is using the memory repository ({names} is held). Finish or close it, then try again.</source>
            <extracomment>Lock files git and libgit2 leave behind when they die mid-write. A lock younger than this may belong to a program that is about to finish: wait for it. Without a way to see processes (no /proc), only locks older than this count as stale.</extracomment>
            <translation>另一个 git 程序正在使用记忆仓库（{names} 被占用）。请先完成或关闭它，然后重试。</translation>
        </message>
        <message>
            <source>recovered a stale {lock} (left by a program that stopped mid-write)</source>
            <translation>已清理残留的 {lock}（由写入中途停止的程序留下）</translation>
        </message>
        <message>
            <source>.gitignore still ignores {paths}; remove the rule that hides it</source>
            <translation>.gitignore 仍忽略 {paths}；请删除隐藏它的规则</translation>
        </message>
        <message>
            <source>{commit} "{subject}" is the first commit of the memory history; undoing it would remove every memory file, so it is not allowed.</source>
            <extracomment>How many later commits a conflict explanation names.</extracomment>
            <translation>{commit}“{subject}”是记忆历史的第一次提交；撤销它会删除所有记忆文件，因此不允许。</translation>
        </message>
        <message>
            <source>{commit} is not part of the current memory history.</source>
            <translation>{commit} 不在当前的记忆历史中。</translation>
        </message>
        <message>
            <source>nothing to undo: the changes of {commit} "{subject}" are no longer in the files.</source>
            <translation>无可撤销：{commit}“{subject}”的修改已不在文件中。</translation>
        </message>
        <message>
            <source>Cannot undo {commit} "{subject}": a later change touched the same lines of {files}, so undoing it automatically could lose that later change.</source>
            <translation>无法撤销 {commit}“{subject}”：之后的一次修改改动了 {files} 中的相同行，自动撤销可能会丢失那次修改。</translation>
        </message>
        <message>
            <source>Later changes to {path}: {named} and {more} more.</source>
            <translation>{path} 之后的修改：{named} 等，另有 {more} 处。</translation>
        </message>
        <message>
            <source>Later changes to {path}: {named}.</source>
            <translation>{path} 之后的修改：{named}。</translation>
        </message>
        <message>
            <source>Nothing was changed. Edit the file by hand, or undo the later change first.</source>
            <translation>未做任何改动。请手动编辑文件，或先撤销之后的那次修改。</translation>
        </message>
        <message>
            <source>cannot open the memory repository {gitdir}: {error}</source>
            <extracomment>Paths the repository tracks, relative to the workspace. Files people edit; changes to them found on disk are recorded as ``edit:`` commits. App bookkeeping: never moved by a revert (undoing a Dream must not make it re-read the batch).</extracomment>
            <translation>无法打开记忆仓库 {gitdir}：{error}</translation>
        </message>
        <message>
            <source>{gitdir} is not a working repository of this workspace (bare, or linked elsewhere); move it away and the memory history starts afresh</source>
            <translation>{gitdir} 不是此工作区的工作仓库（裸仓库，或链接到别处）；将它移走后记忆历史会重新开始</translation>
        </message>
        <message>
            <source>the memory history could not be read or written: {error}</source>
            <translation>无法读取或写入记忆历史：{error}</translation>
        </message>
        <message>
            <source>Memory history is off: this workspace lies inside the git repository {outer}, and a repository of its own would hide the memory files from it. Move the workspace out of it (or give it its own .git) to keep a history of memory changes.</source>
            <translation>记忆历史已关闭：此工作区位于 git 仓库 {outer} 之内，单独的仓库会让该仓库看不到记忆文件。请将工作区移出（或为它建立自己的 .git），以保留记忆修改的历史。</translation>
        </message>
        <message>
            <source>set aside a corrupt repository as {name} ({error}); started a fresh memory history from the current files, which were not changed</source>
            <translation>已将损坏的仓库另存为 {name}（{error}）；已从当前文件开始新的记忆历史，文件本身未被改动</translation>
        </message>
        <message>
            <source>added {paths} to .gitignore so the history includes it</source>
            <translation>已将 {paths} 加入 .gitignore，使历史记录包含它</translation>
        </message>
        <message>
            <source>recorded an outside edit of {path} as {commit}</source>
            <translation>已将 {path} 的外部修改记录为 {commit}</translation>
        </message>
        <message>
            <source>{problem}; the memory history keeps it as it was</source>
            <translation>{problem}；记忆历史保留其原样</translation>
        </message>
        <message>
            <source>could not update the git index; 'git status' may look out of date</source>
            <translation>无法更新 git 索引；“git status”可能显示过时的状态</translation>
        </message>
        <message>
            <source>it does not hold a list of pins</source>
            <translation>其中没有固定行的列表</translation>
        </message>
        <message>
            <source>1 entry could not be used</source>
            <translation>有 1 个条目无法使用</translation>
        </message>
        <message>
            <source>{count} entries could not be used</source>
            <translation>有 {count} 个条目无法使用</translation>
        </message>
        <message>
            <source>only lines of {files} can be pinned, not {path}</source>
            <translation>只能固定 {files} 中的行，不能固定 {path}</translation>
        </message>
        <message>
            <source>a blank line cannot be pinned</source>
            <translation>空行不能固定</translation>
        </message>
        <message>
            <source>the pin of “{line}” in {path} now holds “{moved}”</source>
            <translation>{path} 中“{line}”的固定现在指向“{moved}”</translation>
        </message>
        <message>
            <source>the pinned line “{line}” is no longer in {path}; the pin waits for it to come back (or unpin it)</source>
            <translation>已固定的行“{line}”已不在 {path} 中；固定会等待它重新出现（也可以取消固定）</translation>
        </message>
        <message>
            <source>The pinned lines in {path} could not all be read ({reason}); {kept}. Pins that could not be read are not enforced.</source>
            <translation>{path} 中的固定行未能全部读取（{reason}）；{kept}。无法读取的固定不会生效。</translation>
        </message>
        <message>
            <source>the proposal names this file twice</source>
            <translation>建议中两次列出了这个文件</translation>
        </message>
        <message>
            <source>another program is deciding the Dream proposal ({lock}); try again in a moment</source>
            <translation>另一个程序正在处理梦境整理建议（{lock}）；请稍后再试</translation>
        </message>
        <message>
            <source>no record of a Dream run matches it</source>
            <translation>没有与之相符的梦境整理运行记录</translation>
        </message>
        <message>
            <source>it was left where it is</source>
            <translation>它保留在原处</translation>
        </message>
        <message>
            <source>it was moved aside as {name} (in the memory folder)</source>
            <translation>它已被移到一旁，名为 {name}（在 memory 文件夹中）</translation>
        </message>
        <message>
            <source>it was replaced meanwhile</source>
            <translation>它在此期间已被替换</translation>
        </message>
        <message>
            <source>A Dream proposal in {file} was refused: Dream did not write it ({why}), so nothing of it is offered or applied; {where}.</source>
            <translation>{file} 中的一份梦境整理建议被拒绝：它不是梦境整理写的（{why}），因此不会提供或应用其中任何内容；{where}。</translation>
        </message>
        <message>
            <source>it {problem}; it was moved to {name}</source>
            <translation>它{problem}；已移到 {name}</translation>
        </message>
        <message>
            <source>it cannot be read ({error})</source>
            <translation>无法读取它（{error}）</translation>
        </message>
        <message>
            <source>it could not be copied aside ({error})</source>
            <translation>无法另存副本（{error}）</translation>
        </message>
        <message>
            <source>The scheduled jobs file {path} had problems ({problems}); {kept} and the {count} usable job(s) were kept.</source>
            <translation>计划任务文件 {path} 有问题（{problems}）；{kept}，可用的 {count} 个任务已保留。</translation>
        </message>
        <message>
            <source>{reason}; {kept}</source>
            <translation>{reason}；{kept}</translation>
        </message>
        <message>
            <source>the scheduler starts empty</source>
            <translation>计划程序以空任务列表启动</translation>
        </message>
        <message>
            <source>the jobs in memory were kept</source>
            <translation>内存中的任务已保留</translation>
        </message>
        <message>
            <source>The scheduled jobs file {path} could not be read ({what}); {kept}.</source>
            <translation>无法读取计划任务文件 {path}（{what}）；{kept}。</translation>
        </message>
        <message>
            <source>The pending Dream proposal {path} could not be read ({reason}); {kept}. Dream will read those history entries again.</source>
            <translation>无法读取待审的梦境整理建议 {path}（{reason}）；{kept}。梦境整理会重新读取那些历史条目。</translation>
        </message>
        <message>
            <source>the transcription answer had no text</source>
            <translation>转写结果中没有文本</translation>
        </message>
        <message>
            <source>AssemblyAI's upload answer had no upload_url</source>
            <translation>AssemblyAI 的上传响应中没有 upload_url</translation>
        </message>
        <message>
            <source>AssemblyAI's transcript answer had no id</source>
            <translation>AssemblyAI 的转写响应中没有 id</translation>
        </message>
        <message>
            <source>AssemblyAI could not transcribe it: {error}</source>
            <translation>AssemblyAI 无法转写：{error}</translation>
        </message>
        <message>
            <source>AssemblyAI did not finish the transcript in time</source>
            <translation>AssemblyAI 未能及时完成转写</translation>
        </message>
        <message>
            <source>StepFun could not transcribe it: {error}</source>
            <translation>StepFun 无法转写：{error}</translation>
        </message>
        <message>
            <source>StepFun's stream ended without the text</source>
            <translation>StepFun 的流已结束，但没有返回文本</translation>
        </message>
        <message>
            <source>install it (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), then restart nanobot Desktop</source>
            <translation>请安装它（Debian/Ubuntu：sudo apt install bubblewrap；Fedora：sudo dnf install bubblewrap；Arch：sudo pacman -S bubblewrap），然后重启 nanobot Desktop</translation>
        </message>
        <message>
            <source>Commands run without the sandbox: {reason}</source>
            <translation>命令在沙箱外运行：{reason}</translation>
        </message>
        <message>
            <source>install it ({command}), then restart nanobot Desktop</source>
            <translation>请安装它（{command}），然后重启 nanobot Desktop</translation>
        </message>
        <message>
            <source>Commands run without the sandbox: {reason}.</source>
            <translation>命令在沙箱外运行：{reason}。</translation>
        </message>
        <message>
            <source>The project folder is empty or not a valid path.</source>
            <translation>项目文件夹为空，或不是有效路径。</translation>
        </message>
        <message>
            <source>The project folder must be an absolute path: {path}</source>
            <translation>项目文件夹必须是绝对路径：{path}</translation>
        </message>
        <message>
            <source>The project folder does not exist or is not a folder: {path}</source>
            <translation>项目文件夹不存在或不是文件夹：{path}</translation>
        </message>
        <message>
            <source>Voice input needs the voice extra (sounddevice).</source>
            <translation>语音输入需要 voice 扩展（sounddevice）。</translation>
        </message>
        <message>
            <source>Voice input needs PortAudio (the libportaudio2 package on Debian and Ubuntu).</source>
            <translation>语音输入需要 PortAudio（Debian 和 Ubuntu 上的 libportaudio2 软件包）。</translation>
        </message>
        <message>
            <source>No microphone could be opened ({error}).</source>
            <translation>无法打开麦克风（{error}）。</translation>
        </message>
        <message>
            <source>{reason} {hint}</source>
            <translation>{reason}。{hint}</translation>
        </message>
        <message>
            <source>The Client ID or Client secret is not set.</source>
            <translation>未设置 Client ID 或 Client secret</translation>
        </message>
        <message>
            <source>Create an app with a robot in stream mode at open-dev.dingtalk.com and enter its Client ID and Client secret in Settings → Channels → DingTalk.</source>
            <translation>请在 open-dev.dingtalk.com 创建一个带 Stream 模式机器人的应用，并在 设置 → 渠道 → DingTalk 中填写它的 Client ID 和 Client secret。</translation>
        </message>
        <message>
            <source>DingTalk did not accept the Client ID and secret ({error}).</source>
            <translation>DingTalk 未接受该 Client ID 和 secret（{error}）</translation>
        </message>
        <message>
            <source>Check the Client ID and Client secret in Settings → Channels → DingTalk.</source>
            <translation>请在 设置 → 渠道 → DingTalk 中检查 Client ID 和 Client secret。</translation>
        </message>
        <message>
            <source>Credentials accepted (robot {robot})</source>
            <translation>凭据已通过（机器人 {robot}）</translation>
        </message>
        <message>
            <source>Check the bot token in Settings → Channels → Discord (Developer Portal → Bot).</source>
            <translation>请在 设置 → 渠道 → Discord 中检查机器人令牌（Developer Portal → Bot）。</translation>
        </message>
        <message>
            <source>No bot token is set.</source>
            <translation>未设置机器人令牌</translation>
        </message>
        <message>
            <source>Create an application in Discord's Developer Portal, add a bot and enter its token in Settings → Channels → Discord.</source>
            <translation>请在 Discord 的 Developer Portal 中创建应用并添加机器人，然后在 设置 → 渠道 → Discord 中填写它的令牌。</translation>
        </message>
        <message>
            <source>Discord did not accept the bot token.</source>
            <translation>Discord 未接受该机器人令牌</translation>
        </message>
        <message>
            <source>Discord refused the message content intent.</source>
            <translation>Discord 拒绝了 Message Content Intent</translation>
        </message>
        <message>
            <source>Turn on Message Content Intent (Developer Portal → Bot → Privileged Gateway Intents).</source>
            <translation>请开启 Message Content Intent（Developer Portal → Bot → Privileged Gateway Intents）。</translation>
        </message>
        <message>
            <source>Discord refused the gateway intents.</source>
            <translation>Discord 拒绝了网关 Intents</translation>
        </message>
        <message>
            <source>Check the intents setting and the privileged intents in the Developer Portal.</source>
            <translation>请检查 intents 设置以及 Developer Portal 中的特权 Intents。</translation>
        </message>
        <message>
            <source>Discord closed the connection (code {code})</source>
            <translation>Discord 关闭了连接（代码 {code}）</translation>
        </message>
        <message>
            <source>the connection to Discord ended</source>
            <translation>与 Discord 的连接已结束</translation>
        </message>
        <message>
            <source>The connection to Discord was lost; resuming.</source>
            <translation>与 Discord 的连接已断开，正在恢复</translation>
        </message>
        <message>
            <source>Connected as @{user}</source>
            <translation>已连接，身份为 @{user}</translation>
        </message>
        <message>
            <source>Connected</source>
            <translation>已连接</translation>
        </message>
        <message>
            <source>Discord is not connected</source>
            <translation>Discord 未连接</translation>
        </message>
        <message>
            <source>Discord refused the message ({error}).</source>
            <translation>Discord 拒绝了这条消息（{error}）</translation>
        </message>
        <message>
            <source>Check that the bot is in that channel and may send messages there.</source>
            <translation>请确认机器人在该频道中，并有权在那里发送消息。</translation>
        </message>
        <message>
            <source>The API address {base} is not an http(s) address.</source>
            <translation>API 地址 {base} 不是 http(s) 地址</translation>
        </message>
        <message>
            <source>Fix the API address in Settings → Channels → Discord (or clear it).</source>
            <translation>请在 设置 → 渠道 → Discord 中改正 API 地址（或将其清空）。</translation>
        </message>
        <message>
            <source>Once the mailbox owner has agreed that the agent reads and answers this mailbox, turn on "Consent granted" in Settings → Channels → Email (channels.email.consentGranted).</source>
            <translation>在邮箱所有者同意智能体读取并回复此邮箱后，请在 设置 → 渠道 → Email 中开启“Consent granted”（channels.email.consentGranted）。</translation>
        </message>
        <message>
            <source>Email access has not been granted</source>
            <translation>尚未获得邮箱访问授权</translation>
        </message>
        <message>
            <source>Email is not fully set up (missing: {settings})</source>
            <translation>Email 尚未设置完整（缺少：{settings}）</translation>
        </message>
        <message>
            <source>Fill these in under Settings → Channels → Email. trustedAuthservIds is the authserv-id in your provider's Authentication-Results header; or turn off verifyDkim and verifySpf.</source>
            <translation>请在 设置 → 渠道 → Email 中填写这些项。trustedAuthservIds 是邮件服务商 Authentication-Results 头中的 authserv-id；也可以关闭 verifyDkim 和 verifySpf。</translation>
        </message>
        <message>
            <source>Check the IMAP username and password in Settings → Email.</source>
            <translation>请在 设置 → Email 中检查 IMAP 用户名和密码。</translation>
        </message>
        <message>
            <source>Check imapMailbox in Settings → Email (INBOX is the inbox).</source>
            <translation>请在 设置 → Email 中检查 imapMailbox（INBOX 即收件箱）。</translation>
        </message>
        <message>
            <source>No SMTP host is set</source>
            <translation>未设置 SMTP 主机</translation>
        </message>
        <message>
            <source>Fill in smtpHost in Settings.</source>
            <translation>请在设置中填写 smtpHost。</translation>
        </message>
        <message>
            <source>Connected as {account}</source>
            <translation>已连接，身份为 {account}</translation>
        </message>
        <message>
            <source>No app ID or app secret is set.</source>
            <translation>未设置 App ID 或 App Secret</translation>
        </message>
        <message>
            <source>Create a self-built app with the bot feature on the Feishu / Lark developer console and enter its App ID and App Secret in Settings → Channels → Feishu.</source>
            <translation>请在 Feishu / Lark 开发者后台创建一个带机器人能力的自建应用，并在 设置 → 渠道 → Feishu 中填写它的 App ID 和 App Secret。</translation>
        </message>
        <message>
            <source>Feishu did not accept the app's credentials ({error}).</source>
            <translation>Feishu 未接受该应用的凭据（{error}）</translation>
        </message>
        <message>
            <source>Check the App ID, the App Secret and the platform (Feishu or Lark) in Settings → Channels → Feishu.</source>
            <translation>请在 设置 → 渠道 → Feishu 中检查 App ID、App Secret 和平台（Feishu 或 Lark）。</translation>
        </message>
        <message>
            <source>Feishu refused the long connection ({error}).</source>
            <translation>Feishu 拒绝了长连接（{error}）</translation>
        </message>
        <message>
            <source>Check the App ID, the App Secret and the platform in Settings → Channels → Feishu, and that the app has the bot feature and a published version.</source>
            <translation>请在 设置 → 渠道 → Feishu 中检查 App ID、App Secret 和平台，并确认应用已开启机器人能力且有已发布的版本。</translation>
        </message>
        <message>
            <source>unknown channel {name}</source>
            <translation>未知渠道 {name}</translation>
        </message>
        <message>
            <source>{channel} needs a package that is not installed ({error})</source>
            <translation>{channel} 需要一个尚未安装的软件包（{error}）</translation>
        </message>
        <message>
            <source>the connection ended</source>
            <translation>连接已结束</translation>
        </message>
        <message>
            <source>Reconnecting in {delay} s.</source>
            <translation>{delay} 秒后重新连接。</translation>
        </message>
        <message>
            <source>the {channel} channel is not running</source>
            <translation>{channel} 渠道未在运行</translation>
        </message>
        <message>
            <source>{error} ({done} of its parts arrived)</source>
            <translation>{error}（其中 {done} 部分已送达）</translation>
        </message>
        <message>
            <source>it was too old to send after the restart</source>
            <translation>重启后它已过期，不再发送</translation>
        </message>
        <message>
            <source>Settings → Channels → Matrix</source>
            <translation>设置 → 渠道 → Matrix</translation>
        </message>
        <message>
            <source>Matrix needs the homeserver address.</source>
            <translation>Matrix 需要主服务器（homeserver）地址</translation>
        </message>
        <message>
            <source>Matrix needs an access token (or a password) for the bot account.</source>
            <translation>Matrix 需要机器人账号的访问令牌（或密码）</translation>
        </message>
        <message>
            <source>{settings}: fill in Access token (or Password) and User ID</source>
            <translation>{settings}：请填写访问令牌（或密码）和用户 ID</translation>
        </message>
        <message>
            <source>Matrix needs the bot's user ID to log in with a password.</source>
            <translation>Matrix 用密码登录时需要机器人的用户 ID</translation>
        </message>
        <message>
            <source>The homeserver rejected the access token ({code}).</source>
            <translation>主服务器拒绝了该访问令牌（{code}）</translation>
        </message>
        <message>
            <source>{settings}: paste a current access token of {user}</source>
            <translation>{settings}：请粘贴 {user} 当前有效的访问令牌</translation>
        </message>
        <message>
            <source>the bot</source>
            <translation>机器人</translation>
        </message>
        <message>
            <source>The homeserver refused the password for {user}.</source>
            <translation>主服务器拒绝了 {user} 的密码</translation>
        </message>
        <message>
            <source>{settings}: check User ID and Password</source>
            <translation>{settings}：请检查用户 ID 和密码</translation>
        </message>
        <message>
            <source>The homeserver no longer accepts the access token ({code}).</source>
            <translation>主服务器不再接受该访问令牌（{code}）</translation>
        </message>
        <message>
            <source>{settings}: paste a current access token</source>
            <translation>{settings}：请粘贴当前有效的访问令牌</translation>
        </message>
        <message>
            <source>No server address and token is set.</source>
            <translation>未设置服务器地址和令牌</translation>
        </message>
        <message>
            <source>No server address is set.</source>
            <translation>未设置服务器地址</translation>
        </message>
        <message>
            <source>No token is set.</source>
            <translation>未设置令牌</translation>
        </message>
        <message>
            <source>Create a bot account (docs/channels/mattermost.md) and enter the server address and its token in Settings → Channels → Mattermost.</source>
            <translation>请创建一个机器人账号（docs/channels/mattermost.md），并在 设置 → 渠道 → Mattermost 中填写服务器地址和它的令牌。</translation>
        </message>
        <message>
            <source>The server address {url} is not a web address.</source>
            <translation>服务器地址 {url} 不是网址</translation>
        </message>
        <message>
            <source>Write it as "https://chat.example.org".</source>
            <translation>请写成“https://chat.example.org”的形式。</translation>
        </message>
        <message>
            <source>Check the bot's token (Integrations → Bot Accounts → Create New Token).</source>
            <translation>请检查机器人的令牌（Integrations → Bot Accounts → Create New Token）。</translation>
        </message>
        <message>
            <source>The connection to Mattermost was lost.</source>
            <translation>与 Mattermost 的连接已断开</translation>
        </message>
        <message>
            <source>Connected as @{user} on {server}</source>
            <translation>已连接到 {server}，身份为 @{user}</translation>
        </message>
        <message>
            <source>Mattermost is not connected</source>
            <translation>Mattermost 未连接</translation>
        </message>
        <message>
            <source>Settings → Channels → Mochat</source>
            <translation>设置 → 渠道 → Mochat</translation>
        </message>
        <message>
            <source>No claw token is set.</source>
            <translation>未设置 claw 令牌</translation>
        </message>
        <message>
            <source>Register the agent on Mochat and enter its claw token in {settings}.</source>
            <translation>请在 Mochat 上注册智能体，并在 {settings} 中填写它的 claw 令牌。</translation>
        </message>
        <message>
            <source>The Mochat server address {url} is not an http(s) URL.</source>
            <translation>Mochat 服务器地址 {url} 不是 http(s) URL</translation>
        </message>
        <message>
            <source>No sessions or panels to answer in.</source>
            <translation>没有可回复的会话或面板</translation>
        </message>
        <message>
            <source>{settings}: add session or panel ids, or "*" for all of them.</source>
            <translation>{settings}：请添加会话或面板 ID，或用“*”表示全部。</translation>
        </message>
        <message>
            <source>Mochat did not accept the claw token.</source>
            <translation>Mochat 未接受该 claw 令牌</translation>
        </message>
        <message>
            <source>{settings}: check the claw token.</source>
            <translation>{settings}：请检查 claw 令牌。</translation>
        </message>
        <message>
            <source>Connected to {server} as {agent} ({count} sessions)</source>
            <translation>已连接到 {server}，身份为 {agent}（{count} 个会话）</translation>
        </message>
        <message>
            <source>Connected to {server} ({count} sessions)</source>
            <translation>已连接到 {server}（{count} 个会话）</translation>
        </message>
        <message>
            <source>No app ID and app password is set.</source>
            <translation>未设置应用 ID 和应用密码</translation>
        </message>
        <message>
            <source>No app ID is set.</source>
            <translation>未设置应用 ID</translation>
        </message>
        <message>
            <source>No app password is set.</source>
            <translation>未设置应用密码</translation>
        </message>
        <message>
            <source>Register an Azure Bot (docs/channels/msteams.md) and enter its app ID and a client secret in Settings → Channels → Microsoft Teams.</source>
            <translation>请注册一个 Azure Bot（docs/channels/msteams.md），并在 设置 → 渠道 → Microsoft Teams 中填写它的应用 ID 和客户端密码。</translation>
        </message>
        <message>
            <source>Cannot listen on {host}:{port} ({error}).</source>
            <translation>无法在 {host}:{port} 上监听（{error}）</translation>
        </message>
        <message>
            <source>Choose another port in Settings → Channels → Microsoft Teams.</source>
            <translation>请在 设置 → 渠道 → Microsoft Teams 中换一个端口。</translation>
        </message>
        <message>
            <source>Microsoft did not accept the app ID and password: {error}</source>
            <translation>Microsoft 未接受该应用 ID 和密码：{error}</translation>
        </message>
        <message>
            <source>Signed in as app {app}</source>
            <translation>已以应用 {app} 的身份登录</translation>
        </message>
        <message>
            <source>Teams conversation {chat} is unknown here (nobody wrote from it yet).</source>
            <translation>此处不认识 Teams 会话 {chat}（还没有人从那里发过消息）</translation>
        </message>
        <message>
            <source>Teams conversation {chat} has an untrusted service URL.</source>
            <translation>Teams 会话 {chat} 的服务 URL 不受信任</translation>
        </message>
        <message>
            <source>Teams is not running</source>
            <translation>Teams 未在运行</translation>
        </message>
        <message>
            <source>Set Access token (Settings → Channels → NapCat) to the token of NapCat's WebSocket server.</source>
            <translation>请把访问令牌（设置 → 渠道 → NapCat）设为 NapCat WebSocket 服务器的令牌。</translation>
        </message>
        <message>
            <source>The NapCat address {url} is not a ws:// address.</source>
            <translation>NapCat 地址 {url} 不是 ws:// 地址</translation>
        </message>
        <message>
            <source>Set NapCat address to NapCat's WebSocket server, e.g. ws://127.0.0.1:3001.</source>
            <translation>请把 NapCat 地址设为 NapCat 的 WebSocket 服务器，例如 ws://127.0.0.1:3001。</translation>
        </message>
        <message>
            <source>The NapCat address is not a valid WebSocket address.</source>
            <translation>NapCat 地址不是有效的 WebSocket 地址</translation>
        </message>
        <message>
            <source>NapCat refused the access token.</source>
            <translation>NapCat 拒绝了该访问令牌</translation>
        </message>
        <message>
            <source>Connected to NapCat as {account}</source>
            <translation>已连接到 NapCat，身份为 {account}</translation>
        </message>
        <message>
            <source>{chat} is not a NapCat chat id.</source>
            <translation>{chat} 不是 NapCat 聊天 ID</translation>
        </message>
        <message>
            <source>Enter the bot's AppID and AppSecret (q.qq.com → Development) in Settings → Channels → QQ.</source>
            <translation>请在 设置 → 渠道 → QQ 中填写机器人的 AppID 和 AppSecret（q.qq.com → 开发）。</translation>
        </message>
        <message>
            <source>The QQ bot's AppID or AppSecret is not set.</source>
            <translation>未设置 QQ 机器人的 AppID 或 AppSecret</translation>
        </message>
        <message>
            <source>QQ did not accept the AppID and AppSecret ({error}).</source>
            <translation>QQ 未接受该 AppID 和 AppSecret（{error}）</translation>
        </message>
        <message>
            <source>No Signal phone number is set.</source>
            <translation>未设置 Signal 手机号</translation>
        </message>
        <message>
            <source>Set Phone number to the number signal-cli is registered with.</source>
            <translation>请把手机号设为 signal-cli 注册时使用的号码。</translation>
        </message>
        <message>
            <source>The signal-cli daemon at {url} is not reachable ({error}). Start it with: {command}</source>
            <translation>无法连接位于 {url} 的 signal-cli 守护进程（{error}）。请用以下命令启动它：{command}</translation>
        </message>
        <message>
            <source>The signal-cli daemon answered the check with HTTP {code}</source>
            <translation>signal-cli 守护进程对检查请求返回了 HTTP {code}</translation>
        </message>
        <message>
            <source>The signal-cli daemon is not connected</source>
            <translation>signal-cli 守护进程未连接</translation>
        </message>
        <message>
            <source>The signal-cli event stream answered HTTP {code}</source>
            <translation>signal-cli 事件流返回了 HTTP {code}</translation>
        </message>
        <message>
            <source>The signal-cli daemon ended the event stream</source>
            <translation>signal-cli 守护进程结束了事件流</translation>
        </message>
        <message>
            <source>signal-cli {version} at {url}</source>
            <translation>位于 {url} 的 signal-cli {version}</translation>
        </message>
        <message>
            <source>Connected to {found} as {account}</source>
            <translation>已连接到 {found}，身份为 {account}</translation>
        </message>
        <message>
            <source>Webhook mode needs a public HTTPS server; the desktop app uses Socket Mode.</source>
            <translation>Webhook 模式需要公网 HTTPS 服务器；桌面应用使用 Socket Mode</translation>
        </message>
        <message>
            <source>Set the Slack mode to "socket" and turn on Socket Mode in the app settings.</source>
            <translation>请把 Slack 模式设为“socket”，并在应用设置中开启 Socket Mode。</translation>
        </message>
        <message>
            <source>No bot token (xoxb-…) and app token (xapp-…) is set.</source>
            <translation>未设置机器人令牌（xoxb-…）和应用令牌（xapp-…）</translation>
        </message>
        <message>
            <source>No bot token (xoxb-…) is set.</source>
            <translation>未设置机器人令牌（xoxb-…）</translation>
        </message>
        <message>
            <source>No app token (xapp-…) is set.</source>
            <translation>未设置应用令牌（xapp-…）</translation>
        </message>
        <message>
            <source>Create a Slack app with Socket Mode on (docs/channels/slack.md) and enter its tokens in Settings → Channels → Slack.</source>
            <translation>请创建一个开启 Socket Mode 的 Slack 应用（docs/channels/slack.md），并在 设置 → 渠道 → Slack 中填写它的令牌。</translation>
        </message>
        <message>
            <source>The app token is not an app-level token (it starts with xapp-).</source>
            <translation>应用令牌不是应用级令牌（应以 xapp- 开头）</translation>
        </message>
        <message>
            <source>Create one under Basic Information → App-Level Tokens with connections:write.</source>
            <translation>请在 Basic Information → App-Level Tokens 下创建一个带 connections:write 权限的令牌。</translation>
        </message>
        <message>
            <source>Check the bot token (OAuth &amp; Permissions → Bot User OAuth Token).</source>
            <translation>请检查机器人令牌（OAuth &amp; Permissions → Bot User OAuth Token）。</translation>
        </message>
        <message>
            <source>Check the app token (Basic Information → App-Level Tokens, with the connections:write scope, and Socket Mode turned on).</source>
            <translation>请检查应用令牌（Basic Information → App-Level Tokens，需有 connections:write 权限，并已开启 Socket Mode）。</translation>
        </message>
        <message>
            <source>Slack did not accept the bot token ({error}).</source>
            <translation>Slack 未接受该机器人令牌（{error}）</translation>
        </message>
        <message>
            <source>Slack did not accept the app token ({error}).</source>
            <translation>Slack 未接受该应用令牌（{error}）</translation>
        </message>
        <message>
            <source>Connected as @{user} in {team}</source>
            <translation>已连接到 {team}，身份为 @{user}</translation>
        </message>
        <message>
            <source>Create a bot with @BotFather and enter its token in Settings → Channels → Telegram.</source>
            <translation>请用 @BotFather 创建机器人，并在 设置 → 渠道 → Telegram 中填写它的令牌。</translation>
        </message>
        <message>
            <source>Check the bot token (from @BotFather) in Settings → Channels → Telegram and the Bot API server address.</source>
            <translation>请在 设置 → 渠道 → Telegram 中检查机器人令牌（来自 @BotFather）和 Bot API 服务器地址。</translation>
        </message>
        <message>
            <source>Check the bot token (from @BotFather) in Settings → Channels → Telegram.</source>
            <translation>请在 设置 → 渠道 → Telegram 中检查机器人令牌（来自 @BotFather）。</translation>
        </message>
        <message>
            <source>Telegram did not accept the bot token.</source>
            <translation>Telegram 未接受该机器人令牌</translation>
        </message>
        <message>
            <source>Webhook mode needs a public HTTPS server; the desktop app receives by polling.</source>
            <translation>Webhook 模式需要公网 HTTPS 服务器；桌面应用通过轮询接收消息</translation>
        </message>
        <message>
            <source>Set the Telegram mode to "polling" (this removes the webhook while it runs).</source>
            <translation>请把 Telegram 模式设为“polling”（运行期间会移除 webhook）。</translation>
        </message>
        <message>
            <source>The TLS certificate or key cannot be used: {error}</source>
            <translation>无法使用该 TLS 证书或密钥：{error}</translation>
        </message>
        <message>
            <source>Check sslCertfile and sslKeyfile (PEM files).</source>
            <translation>请检查 sslCertfile 和 sslKeyfile（PEM 文件）。</translation>
        </message>
        <message>
            <source>Set a token or tokenIssueSecret, or listen on 127.0.0.1.</source>
            <translation>请设置 token 或 tokenIssueSecret，或只在 127.0.0.1 上监听。</translation>
        </message>
        <message>
            <source>Listens on {url}</source>
            <translation>正在监听 {url}</translation>
        </message>
        <message>
            <source>Settings → Channels → WeCom</source>
            <translation>设置 → 渠道 → WeCom</translation>
        </message>
        <message>
            <source>The bot id or secret is not set.</source>
            <translation>未设置机器人 ID 或 Secret</translation>
        </message>
        <message>
            <source>Create an AI bot in WeCom (API mode: long connection) and enter its Bot ID and Secret in {settings}.</source>
            <translation>请在 WeCom 中创建一个智能机器人（API 模式：长连接），并在 {settings} 中填写它的 Bot ID 和 Secret。</translation>
        </message>
        <message>
            <source>The WeCom server {url} is not a ws(s) URL.</source>
            <translation>WeCom 服务器 {url} 不是 ws(s) URL</translation>
        </message>
        <message>
            <source>WeCom did not accept the bot id and secret ({error}).</source>
            <translation>WeCom 未接受该机器人 ID 和 Secret（{error}）</translation>
        </message>
        <message>
            <source>{settings}: check the Bot ID and Secret.</source>
            <translation>{settings}：请检查 Bot ID 和 Secret。</translation>
        </message>
        <message>
            <source>Connected as bot {bot}</source>
            <translation>已连接，身份为机器人 {bot}</translation>
        </message>
        <message>
            <source>WeCom disconnected the bot: another program connected with the same bot.</source>
            <translation>WeCom 断开了机器人：另一个程序用同一个机器人连接了</translation>
        </message>
        <message>
            <source>Stop the other program (nanobot?) using this bot, then start the channel.</source>
            <translation>请停止正在使用该机器人的另一个程序（nanobot？），然后启动此渠道。</translation>
        </message>
        <message>
            <source>Settings → Channels → WeChat</source>
            <translation>设置 → 渠道 → WeChat</translation>
        </message>
        <message>
            <source>Run `nanobot-desktop channels login weixin`, or enable the channel and scan the code in Settings.</source>
            <translation>请运行 `nanobot-desktop channels login weixin`，或启用此渠道并在设置中扫码。</translation>
        </message>
        <message>
            <source>WeChat is not logged in yet</source>
            <translation>微信尚未登录</translation>
        </message>
        <message>
            <source>The WeChat bot token typed in Settings has expired.</source>
            <translation>在设置中填写的微信机器人令牌已过期</translation>
        </message>
        <message>
            <source>Clear it in {settings}, then log in again.</source>
            <translation>请在 {settings} 中清空它，然后重新登录。</translation>
        </message>
        <message>
            <source>WeChat gave no QR code</source>
            <translation>微信没有返回二维码</translation>
        </message>
        <message>
            <source>WeChat confirmed the scan but gave no token.</source>
            <translation>微信确认了扫码，但没有给出令牌</translation>
        </message>
        <message>
            <source>The WeChat QR codes expired unscanned.</source>
            <translation>微信二维码未被扫描，已过期</translation>
        </message>
        <message>
            <source>The WeChat login has expired.</source>
            <translation>微信登录已过期</translation>
        </message>
        <message>
            <source>WeChat's API did not answer: {error}</source>
            <translation>微信 API 没有响应：{error}</translation>
        </message>
        <message>
            <source>WeChat is not connected</source>
            <translation>微信未连接</translation>
        </message>
        <message>
            <source>Not logged in yet: {hint}</source>
            <translation>尚未登录：{hint}</translation>
        </message>
        <message>
            <source>The WeChat login has expired. {hint}</source>
            <translation>微信登录已过期。{hint}</translation>
        </message>
        <message>
            <source>Logged in ({account})</source>
            <translation>已登录（{account}）</translation>
        </message>
        <message>
            <source>WhatsApp is not linked yet</source>
            <translation>WhatsApp 尚未关联</translation>
        </message>
        <message>
            <source>On your phone open WhatsApp → Settings → Linked devices → Link a device and scan the QR code (shown in Settings → Channels → WhatsApp and by `nanobot-desktop channels login`).</source>
            <translation>请在手机上打开 WhatsApp → 设置 → 已关联的设备 → 关联新设备，并扫描二维码（显示在 设置 → 渠道 → WhatsApp 以及 `nanobot-desktop channels login` 中）。</translation>
        </message>
        <message>
            <source>Link it again: `nanobot-desktop channels login whatsapp`, or Connect here.</source>
            <translation>请重新关联：运行 `nanobot-desktop channels login whatsapp`，或在此处点击连接。</translation>
        </message>
        <message>
            <source>WhatsApp needs neonize, which is not installed ({error})</source>
            <translation>WhatsApp 需要 neonize，但它尚未安装（{error}）</translation>
        </message>
        <message>
            <source>The connection to WhatsApp was lost</source>
            <translation>与 WhatsApp 的连接已断开</translation>
        </message>
        <message>
            <source>WhatsApp logged this device out</source>
            <translation>WhatsApp 已将此设备登出</translation>
        </message>
        <message>
            <source>Linking failed: {error}</source>
            <translation>关联失败：{error}</translation>
        </message>
        <message>
            <source>{problem}. {hint}</source>
            <translation>{problem}。{hint}</translation>
        </message>
        <message>
            <source>Linked as {phone}. A linked-device session is saved in {path}</source>
            <translation>已关联为 {phone}。关联设备的会话已保存在 {path}</translation>
        </message>
        <message>
            <source>A linked-device session is saved in {path}</source>
            <translation>关联设备的会话已保存在 {path}</translation>
        </message>
        <message>
            <source>The model returned no answer, even when asked again without tools.</source>
            <translation>即使不带工具再问一次，模型也没有给出回答。</translation>
        </message>
        <message>
            <source>Something went wrong on our side; the details are in the log.</source>
            <translation>我们这边出了问题；详细信息在日志中。</translation>
        </message>
        <message>
            <source>host is {host} (every network interface) but neither token nor tokenIssueSecret is set: set one so nobody on the network can talk to the agent unasked</source>
            <translation>host 为 {host}（所有网络接口），但 token 和 tokenIssueSecret 都未设置：请设置其中之一，以免网络上的任何人都能不请自来地与智能体对话</translation>
        </message>
        <message>
            <source>line {number} is not JSON</source>
            <translation>第 {number} 行不是 JSON</translation>
        </message>
        <message>
            <source>line {number}: {error}</source>
            <translation>第 {number} 行：{error}</translation>
        </message>
        <message>
            <source>line {number}: a job without an id</source>
            <translation>第 {number} 行：任务没有 id</translation>
        </message>
        <message>
            <source>{path} cannot be read ({error}); the queued job edits wait</source>
            <translation>无法读取 {path}（{error}）；排队的任务修改将等待处理</translation>
        </message>
        <message>
            <source>{path} has unusable lines and cannot be copied aside ({error}); kept as is</source>
            <translation>{path} 中有无法使用的行，且无法另存一份（{error}）；保持原样</translation>
        </message>
        <message>
            <source>{path}: {problems}; the queue was kept as {name}</source>
            <translation>{path}：{problems}；该队列已保留为 {name}</translation>
        </message>
        <message>
            <source>{problems}; {problem}</source>
            <translation>{problems}；{problem}</translation>
        </message>
        <message>
            <source>{problems}; and {count} more</source>
            <translation>{problems}；等另外 {count} 项</translation>
        </message>
        <message>
            <source>is a symbolic link (the app does not follow links to or inside its own files)</source>
            <translation>是符号链接（本应用不会跟随指向其自身文件或位于其中的链接）</translation>
        </message>
        <message>
            <source>is not a regular file (a FIFO, socket or device)</source>
            <translation>不是普通文件（是 FIFO、套接字或设备）</translation>
        </message>
        <message>
            <source>is a folder, not a file</source>
            <translation>是文件夹，不是文件</translation>
        </message>
        <message>
            <source>is a file where a folder belongs</source>
            <translation>是文件，但这里应是文件夹</translation>
        </message>
        <message>
            <source>is a symbolic link to a folder (the app does not follow links to or inside its own files; replace the link with a real folder)</source>
            <translation>是指向文件夹的符号链接（本应用不会跟随指向其自身文件或位于其中的链接；请用真实的文件夹替换该链接）</translation>
        </message>
        <message>
            <source>not UTF-8 text (bad byte at offset {offset})</source>
            <translation>不是 UTF-8 文本（偏移 {offset} 处有错误字节）</translation>
        </message>
        <message>
            <source>{where}: {reason}</source>
            <translation>{where}：{reason}</translation>
        </message>
        <message>
            <source>{value} is not a JSON number</source>
            <translation>{value} 不是 JSON 数值</translation>
        </message>
        <message>
            <source>text with an invalid (surrogate) character</source>
            <translation>文本含有无效（代理）字符</translation>
        </message>
        <message>
            <source>nested more than {depth} levels deep</source>
            <translation>嵌套超过 {depth} 层</translation>
        </message>
        <message>
            <source>a key with an invalid character</source>
            <translation>键名含有无效字符</translation>
        </message>
        <message>
            <source>nested too deeply to read</source>
            <translation>嵌套过深，无法读取</translation>
        </message>
        <message>
            <source>invalid JSON: {error} (line {line}, column {column})</source>
            <translation>无效的 JSON：{error}（第 {line} 行，第 {column} 列）</translation>
        </message>
        <message>
            <source>invalid JSON: {error}</source>
            <translation>无效的 JSON：{error}</translation>
        </message>
        <message>
            <source>is not a regular file (device, FIFO or socket)</source>
            <translation>不是普通文件（是设备、FIFO 或套接字）</translation>
        </message>
        <message>
            <source>cannot be read (permission denied)</source>
            <translation>无法读取（权限被拒绝）</translation>
        </message>
        <message>
            <source>cannot be read ({error})</source>
            <translation>无法读取（{error}）</translation>
        </message>
        <message>
            <source>cannot be read: {error}</source>
            <translation>无法读取：{error}</translation>
        </message>
        <message>
            <source>is larger than {limit} bytes</source>
            <translation>大于 {limit} 字节</translation>
        </message>
        <message>
            <source>{size} bytes long, over the {limit}-byte limit</source>
            <translation>长 {size} 字节，超过 {limit} 字节的上限</translation>
        </message>
    </context>
</TS>
